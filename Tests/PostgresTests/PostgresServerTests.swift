import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The throwaway cluster the PostgreSQL suite runs against.
@Suite struct PostgresServerTests {
    @Test func testServerListensOnLoopbackOnlyWithItsSocketInItsDirectory() throws {
        let server = try PostgresServer.shared()
        #expect(try server.psql("SHOW listen_addresses") == "127.0.0.1\n")
        #expect(try server.psql("SHOW unix_socket_directories") == "\(server.directory)\n")
        #expect(try server.psql("SHOW fsync") == "off\n")
        #expect(FileManager.default.fileExists(atPath: "\(server.directory)/.s.PGSQL.\(server.port)"))
        #expect(try PostgresServer.shared() === server)
    }

    @Test func testClusterBelongsToAUserInitdbAccepts() throws {
        let server = try PostgresServer.shared()
        var info = stat()
        #expect(stat("\(server.directory)/data", &info) == 0)
        #expect(info.st_uid != 0)
        if getuid() != 0 { #expect(info.st_uid == getuid()) }
        #expect(try server.psql("SELECT current_user") == "mrq\n")
    }

    @Test func testEachDatabaseIsApart() throws {
        let server = try PostgresServer.shared()
        let first = try server.createDatabase(), second = try server.createDatabase()
        #expect(first != second)
        let (a, b) = (String(first.split(separator: "/").last!), String(second.split(separator: "/").last!))
        _ = try server.psql("CREATE TABLE only_here (x int)", database: a)
        #expect(try server.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'", database: a) == "1\n")
        #expect(try server.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'", database: b) == "0\n")
    }

    /// A crashed run's directory goes, and its server (here a stand-in
    /// process whose working directory is the data directory) is stopped;
    /// a process that only has the pid the file names is left alone, and
    /// so is the directory of a run still going.
    @Test func testStaleClustersOfGoneProcessesAreRemoved() throws {
        _ = try PostgresServer.shared()
        let gone = try Self.finishedProcessID()
        func cluster(owner: pid_t) throws -> String {
            var template = Array("/tmp/\(PostgresServer.prefix)XXXXXX".utf8CString)
            #expect(mkdtemp(&template) != nil)
            let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            try FileManager.default.createDirectory(atPath: "\(directory)/data", withIntermediateDirectories: false)
            try "\(owner)\n".write(toFile: "\(directory)/owner", atomically: false, encoding: .utf8)
            return directory
        }
        let crashed = try cluster(owner: gone)
        let postmaster = try PostgresServer.spawn(["/bin/sleep", "30"], in: "\(crashed)/data", output: -1)
        try "\(postmaster)\n/tmp/x\n".write(toFile: "\(crashed)/data/postmaster.pid", atomically: false, encoding: .utf8)
        let reused = try cluster(owner: gone)
        let bystander = try PostgresServer.spawn(["/bin/sleep", "30"], in: "/tmp", output: -1)
        try "\(bystander)\n".write(toFile: "\(reused)/data/postmaster.pid", atomically: false, encoding: .utf8)
        let live = try cluster(owner: getpid())
        defer {
            kill(bystander, SIGKILL)
            _ = PostgresServer.wait(for: bystander)
            try? FileManager.default.removeItem(atPath: live)
        }

        PostgresServer.removeStale()

        #expect(!FileManager.default.fileExists(atPath: crashed))
        #expect(!FileManager.default.fileExists(atPath: reused))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(PostgresServer.wait(for: postmaster) & 0x7f == SIGQUIT)
        #expect(kill(bystander, 0) == 0)
    }

    /// The id of a process that has ended.
    static func finishedProcessID() throws -> pid_t {
        let pid = try PostgresServer.spawn(["/bin/true"], in: "/", output: -1)
        _ = PostgresServer.wait(for: pid)
        return pid
    }
}
