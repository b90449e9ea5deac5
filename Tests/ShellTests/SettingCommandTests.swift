import Foundation
import Testing
@testable import Shell

/// `.mode`, `.headers`, `.timer` and `.bail`: with an argument they change
/// the setting, without one they say what it is; `.timer on` reports each
/// statement's time as sqlite3 does.
@Suite struct SettingCommandTests {
    @Test func withoutAnArgumentEachSettingIsShown() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".mode").text == "mode: table\n")
        #expect(shell.run(".headers").text == "headers: on\n")
        #expect(shell.run(".timer").text == "timer: off\n")
        #expect(shell.run(".bail").text == "bail: on\n")
        #expect(shell.run(".mode line\n.headers off\n.bail off").ok)
        #expect(shell.run(".mode\n.headers\n.bail").text == "mode: line\nheaders: off\nbail: off\n")
        // In json and csv, standard output keeps only results.
        let json = shell.run(".mode json\n.mode")
        #expect(json.text == "")
        #expect(json.errors == "mode: json\n")
    }

    @Test(arguments: [".mode xml", ".headers maybe", ".timer on off", ".bail 2"])
    func aWrongArgumentShowsTheUsage(line: String) throws {
        let shell = try ShellHarness()
        let result = shell.run(line)
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("error: usage: .\(line.dropFirst().prefix { $0 != " " }) ["))
    }

    @Test func theTimerReportsRealUserAndSystemTime() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".timer on").text == "")
        let lines = shell.run("count Person\n\"done\"").text.split(separator: "\n").map(String.init)
        let times = lines.filter { $0.hasPrefix("Run Time:") }
        #expect(times.count == 2)
        for line in times {
            #expect(line.range(of: #"^Run Time: real \d+\.\d{3} user \d+\.\d{6} sys \d+\.\d{6}$"#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(lines.last?.hasPrefix("Run Time:") == true && lines.contains("done"))
        #expect(shell.run(".timer off\n\"quiet\"").text == "quiet\n")
    }

    /// sqlite3's `.tables`, the first thing its users type, lists the
    /// entities as `.entities` does.
    @Test func tablesIsEntities() throws {
        let shell = try ShellHarness()
        let tables = shell.run(".tables")
        #expect(tables.ok && tables.text.contains("Person"))
        #expect(tables.text == shell.run(".entities").text)
    }
}
