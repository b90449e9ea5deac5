import CBaseline
import Foundation
import GRDB
import ObjectStore

/// w. Big models fast (issue 31): open the corpus's largest model with no
/// model given (decoded from the store's Z_MODELCACHE, its version hashes
/// checked against Z_METADATA's) and count every entity, against raw
/// SQLite C running the same counts. The store is the real one with the
/// largest model cache that mrq reads, from `$MRQ_REAL_FILES/corpus`
/// (default `/work/real/corpus`), copied into the fixtures; without a
/// corpus, a stand-in of the same size that mrq writes in Core Data's
/// layout, model cache included.
enum CorpusWorkloads {
    /// The size of the corpus's largest model (Viber's Contacts.data: 23
    /// entities, 283 attributes, 56 relationships), for the stand-in.
    static let standInEntities = 23
    static let standInAttributes = 283
    static let standInRelationshipPairs = 28

    static func store(_ fixtures: Fixtures) -> URL { fixtures.directory.appendingPathComponent("corpus-largest.sqlite") }
    static func note(_ fixtures: Fixtures) -> URL { fixtures.directory.appendingPathComponent("corpus-largest.txt") }

    static var corpusFolder: URL {
        let root = ProcessInfo.processInfo.environment["MRQ_REAL_FILES"] ?? "/work/real"
        return URL(fileURLWithPath: root).appendingPathComponent("corpus")
    }

    /// Puts the workload's store in the fixtures: the corpus's largest
    /// readable model, or the generated stand-in.
    static func prepare(_ fixtures: Fixtures, _ scale: Scale) throws {
        let target = store(fixtures)
        let objectsPerEntity = scale.smoke ? 40 : 400
        try makeStandIn(at: standInStore(fixtures), objectsPerEntity: objectsPerEntity)
        if let (source, size) = largestReadableStore(probing: fixtures.directory.appendingPathComponent("corpus-probe")) {
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
                try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
            }
            let name = String(source.path.dropFirst(corpusFolder.path.count + 1))
            try "\(name) (model cache \(size) bytes)".write(to: note(fixtures), atomically: true, encoding: .utf8)
        } else {
            try Fixtures.copy(standInStore(fixtures), to: target)
            try "generated stand-in (no corpus in \(corpusFolder.path))".write(to: note(fixtures), atomically: true, encoding: .utf8)
        }
    }

    /// The corpus store with the largest Z_MODELCACHE whose model mrq
    /// reads and whose store it opens, with that cache's size. Each is
    /// read through a copy in `probing`: SQLite opening a WAL-mode store
    /// read-only (not immutable) makes a `-wal` and `-shm` beside it, and
    /// the corpus's files stay as their repositories hold them.
    static func largestReadableStore(probing folder: URL) -> (URL, Int)? {
        guard let walker = FileManager.default.enumerator(at: corpusFolder, includingPropertiesForKeys: nil) else { return nil }
        defer { try? FileManager.default.removeItem(at: folder) }
        var candidates: [(URL, Int)] = []
        for case let url as URL in walker where !url.lastPathComponent.hasSuffix("-wal") && !url.lastPathComponent.hasSuffix("-shm") {
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            guard header == Data("SQLite format 3\0".utf8), let copy = try? copyForReading(url, into: folder),
                  let size = try? modelCacheSize(copy), size > 0 else { continue }
            candidates.append((url, size))
        }
        for (url, size) in candidates.sorted(by: { ($0.1, $0.0.path) > ($1.1, $1.0.path) }) {
            guard let copy = try? copyForReading(url, into: folder),
                  let model = try? PersistentStoreCoordinator.storedModel(at: copy) else { continue }
            let coordinator = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.readOnly = true
            let opened = (try? coordinator.addPersistentStore(type: .sqlite, at: copy, options: options)) != nil
            coordinator.removeStores()
            if opened { return (url, size) }
        }
        return nil
    }

    /// A copy of `url` (with its `-wal` and `-shm`) alone in `folder`,
    /// which is emptied first.
    static func copyForReading(_ url: URL, into folder: URL) throws -> URL {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        return copy
    }

    static func readOnly(_ url: URL) throws -> DatabaseQueue {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    static func modelCacheSize(_ url: URL) throws -> Int {
        try readOnly(url).read { db in
            guard try db.tableExists("Z_MODELCACHE") else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT length(Z_CONTENT) FROM Z_MODELCACHE") ?? 0
        }
    }

    /// The counts by hand: for each entity of the model, the rows of its
    /// root's table whose Z_ENT is its number or a sub-entity's (from
    /// Z_PRIMARYKEY), as SQL for the C baseline.
    static func countStatements(_ url: URL, _ model: ManagedObjectModel) throws -> [String] {
        let rows = try readOnly(url).read { db in try GRDB.Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT, Z_SUPER FROM Z_PRIMARYKEY") }
        var numbers: [String: Int64] = [:]
        var names: [Int64: String] = [:]
        var parents: [Int64: Int64] = [:]
        for row in rows {
            let (name, number, parent): (String?, Int64?, Int64?) = (row[0], row[1], row[2])
            guard let name, let number else { continue }
            numbers[name] = number
            names[number] = name
            if let parent, parent != 0 { parents[number] = parent }
        }
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return model.entities.map { entity in
            guard var root = numbers[entity.name] else { return "SELECT 0" }
            var family = [root]
            var index = 0
            while index < family.count {
                let parent = family[index]
                family += parents.filter { $0.value == parent }.map(\.key)
                index += 1
            }
            while let parent = parents[root], names[parent] != nil, parent != root { root = parent }
            let table = quoted("Z" + (names[root] ?? entity.name).uppercased())
            return "SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(family.map(String.init).joined(separator: ",")))"
        }
    }

    /// The version hashes Core Data wrote in Z_METADATA.
    static func storedHashes(_ url: URL) throws -> [String: Data] {
        let plist = try readOnly(url).read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }
        guard let plist,
              let metadata = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
              let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Data] else {
            throw BenchError("the store's Z_METADATA has no NSStoreModelVersionHashes")
        }
        return hashes
    }

    static func c(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let url = store(fixtures)
        let model = try opened(url).0
        let statements = try countStatements(url, model)
        var result = bench_result()
        var times: [Double] = []
        let pointers = statements.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        for _ in 0..<runs {
            var rc: Int32 = 0
            times.append(time {
                rc = pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer {
                    bench_c_counts(url.path, $0.baseAddress, Int64($0.count), &result)
                }
            })
            try cCheck(rc)
        }
        return Measurement(times: times, rows: result.rows, checksum: result.checksum, peakKB: 0,
                           note: (try? String(contentsOf: note(fixtures), encoding: .utf8)) ?? "")
    }

    /// Each run: the model decoded from the store's cache, its version
    /// hashes compared with the metadata's, the store opened read-only
    /// and every entity counted.
    static func mrq(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let url = store(fixtures)
        let stored = try storedHashes(url)
        var times: [Double] = []
        var rows: Int64 = 0
        var checksum: Int64 = 0
        var model: ManagedObjectModel?
        for _ in 0..<runs {
            times.append(try time {
                let (opened, counted, sum) = try openAndCount(url, hashes: stored)
                (model, rows, checksum) = (opened, counted, sum)
            })
        }
        // Described after the runs: formatting is no part of what is timed.
        let entities = model?.entities ?? []
        let shape = "\(entities.count) entities, \(entities.reduce(0) { $0 + $1.attributes.count }) attributes, "
            + "\(entities.reduce(0) { $0 + $1.relationships.count }) relationships (inherited ones counted again)"
        let where_ = (try? String(contentsOf: note(fixtures), encoding: .utf8)) ?? ""
        return Measurement(times: times, rows: rows, checksum: checksum, peakKB: 0, note: "\(where_): \(shape)")
    }

    /// What the mrq side of the row times, and the `model` instruction
    /// path counts: the model decoded from the store's cache, its version
    /// hashes compared with `hashes` (the metadata's), the store opened
    /// read-only and every entity counted.
    static func openAndCount(_ url: URL, hashes: [String: Data]) throws -> (model: ManagedObjectModel, rows: Int64, checksum: Int64) {
        let (model, coordinator) = try opened(url)
        guard model.entityVersionHashesByName == hashes else {
            throw BenchError("the model the store keeps does not have the metadata's version hashes")
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var (rows, checksum): (Int64, Int64) = (0, 0)
        for entity in model.entities {
            checksum += Int64(try context.count(for: FetchRequest(entityName: entity.name)))
            rows += 1
        }
        return (model, rows, checksum)
    }

    /// The generated stand-in, made in every fixture set whether the
    /// corpus is present or not, so the `model` instruction path counts
    /// the same store on every machine.
    static func standInStore(_ fixtures: Fixtures) -> URL { fixtures.directory.appendingPathComponent("corpus-standin.sqlite") }

    /// The same counts as whole commands, as a user runs them: the
    /// `sqlite3` CLI (read-only) running the hand-written count of every
    /// entity, against `mrq --read-only` with no model (so the one the
    /// store keeps) and one `count` of every entity. Each run is its own
    /// process, so both pay their start-up; the first run's output is
    /// read and its counts summed, to check the two agree.
    static func command(_ tool: ShellOutputWorkloads.Tool, _ fixtures: Fixtures) throws -> (String, [String])? {
        let url = store(fixtures)
        let model = try opened(url).0
        switch tool {
        case .sqlite3:
            guard let cli = ShellOutputWorkloads.sqlite3CLI() else { return nil }
            return (cli, ["-readonly", url.path, try countStatements(url, model).map { $0 + ";" }.joined(separator: "\n")])
        case .mrq:
            guard let binary = MRQWorkloads.mrqBinary() else { return nil }
            // `#` escapes a name that is a keyword (an entity called Like).
            return (binary.path, ["--store", url.path, "--read-only", "--format", "csv"] + model.entities.flatMap { ["-c", "count #\($0.name)"] })
        }
    }

    static func wholeCommand(_ tool: ShellOutputWorkloads.Tool, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let (program, arguments) = try command(tool, fixtures) else { return ShellOutputWorkloads.skipped(tool) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(program) failed (status \(process.terminationStatus))") }
        let counts = output.split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        var m = Measurement(times: [], rows: Int64(counts.count), checksum: counts.reduce(0, +), peakKB: 0)
        for _ in 0..<runs {
            m.times.append(try ShellOutputWorkloads.run(program, arguments, toDevNull: true).seconds)
        }
        m.note = tool == .mrq ? "whole process: start-up, model from the cache, open, counts" : "whole process"
        return m
    }

    static func opened(_ url: URL) throws -> (ManagedObjectModel, PersistentStoreCoordinator) {
        var options = PersistentStoreOptions()
        options.readOnly = true
        let coordinator = try PersistentStoreCoordinator.openingStore(at: url, options: options)
        return (coordinator.model, coordinator)
    }

    /// A model the size of the corpus's largest, as an Xcode model: three
    /// sub-entities under the first entity, attributes of every common
    /// type, to-one/to-many pairs across entities.
    static func standInModel() -> Data {
        let types = ["String", "Integer 64", "Double", "Date", "Boolean", "Binary", "Integer 32", "String"]
        var attributes = Array(repeating: standInAttributes / standInEntities, count: standInEntities)
        for i in 0..<(standInAttributes % standInEntities) { attributes[i] += 1 }
        var relationships = Array(repeating: "", count: standInEntities)
        for k in 0..<standInRelationshipPairs {
            let (from, to) = (k % standInEntities, (k * 7 + 3) % standInEntities)
            relationships[from] += #"<relationship name="r\#(k)" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="E\#(to)" inverseName="rs\#(k)" inverseEntity="E\#(to)"/>"#
            relationships[to] += #"<relationship name="rs\#(k)" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="E\#(from)" inverseName="r\#(k)" inverseEntity="E\#(from)"/>"#
        }
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
        for e in 0..<standInEntities {
            let parent = (1...3).contains(e) ? #" parentEntity="E0""# : ""
            xml += #"<entity name="E\#(e)"\#(parent)>"#
            for a in 0..<attributes[e] {
                xml += #"<attribute name="e\#(e)a\#(a)" optional="YES" attributeType="\#(types[(e + a) % types.count])"/>"#
            }
            xml += relationships[e] + "</entity>"
        }
        return Data((xml + "</model>").utf8)
    }

    /// Writes the stand-in store in Core Data's layout (tables, metadata
    /// and model cache as Core Data writes them), `objectsPerEntity`
    /// objects of each entity with every attribute set and every to-one
    /// pointing at an object of its destination.
    static func makeStandIn(at url: URL, objectsPerEntity: Int) throws {
        let model = try ManagedObjectModel(xcdatamodelContents: standInModel())
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.layout = .coreData
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var objects: [String: [ManagedObject]] = [:]
        for entity in model.entities {
            objects[entity.name] = (0..<objectsPerEntity).map { n in
                let object = context.insertObject(forEntityName: entity.name)
                for attribute in entity.attributes {
                    switch attribute.type {
                    case .string: object[attribute.name] = .string("\(entity.name) \(attribute.name) #\(n)")
                    case .double: object[attribute.name] = .double(Double(n) * 0.25)
                    case .date: object[attribute.name] = .date(Date(timeIntervalSinceReferenceDate: Double(n) * 3600))
                    case .boolean: object[attribute.name] = .bool(n % 2 == 0)
                    case .binary: object[attribute.name] = .data(Data(repeating: UInt8(n % 256), count: 16))
                    default: object[attribute.name] = .int(Int64(n))
                    }
                }
                return object
            }
        }
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToOne {
                guard let destination = relationship.destination, let targets = objects[destination.name] else { continue }
                for (n, object) in (objects[entity.name] ?? []).enumerated() where n % 3 != 0 {
                    object.setObject(targets[n % targets.count], forKey: relationship.name)
                }
            }
        }
        try context.save()
        coordinator.removeStores()
    }
}
