import ActiveRecord
import CBaseline
import Foundation
import ObjectStore
import ObjectStorePostgres
import Predicates

/// mrq's public API on each workload, written as an application would.
enum MRQWorkloads {
    /// A coordinator on the SQLite store at `url`, or the PostgreSQL
    /// database a `postgres://` URL names.
    static func open(_ url: URL, model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        if url.scheme == "postgres" {
            try coordinator.addPersistentStore(type: .postgres, at: url)
        } else {
            try coordinator.addSQLiteStore(at: url)
        }
        return coordinator
    }

    // MARK: - a. insert

    static func insert(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.people(scale.people)
        let model = try Models.people()
        let target = fixtures.scratch("insert-mrq")
        var times: [Double] = []
        for _ in 0..<runs {
            try Fixtures.copy(fixtures.personTemplate, to: target)
            let coordinator = try open(target, model: model)
            times.append(try time { try insertAndSave(people, coordinator: coordinator) })
            coordinator.removeStores()
        }
        let written = try CWorkloads.readBack(target)
        Fixtures.remove(target)
        return Measurement(times: times, rows: written.rows, checksum: written.checksum, peakKB: 0)
    }

    /// Inserts `people` into a new context and saves it, as an
    /// application would.
    static func insertAndSave(_ people: [Person], coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for p in people {
            let person = context.insertObject(forEntityName: "Person")
            person["id"] = .int(p.id)
            person["firstName"] = .string(p.firstName)
            person["lastName"] = .string(p.lastName)
            person["email"] = .string(p.email)
            person["age"] = .int(Int64(p.age))
            person["score"] = .double(p.score)
            person["balance"] = .double(p.balance)
            person["city"] = .string(p.city)
            person["createdAt"] = .date(Date(timeIntervalSinceReferenceDate: p.createdAt))
            person["active"] = .bool(p.active)
        }
        try context.save()
    }

    // MARK: - b. fetch and c. filter

    /// Reads every attribute of every object, as the C baseline reads
    /// every column.
    @inline(never)
    static func readAll<C: Collection>(_ objects: C) -> (Int64, Int64) where C.Element == ManagedObject {
        var rows: Int64 = 0
        var checksum: Int64 = 0
        func length(_ value: Value) -> Int64 {
            if case .string(let s) = value { return Int64(s.utf8.count) }
            return 0
        }
        for person in objects {
            guard case .int(let id) = person["id"], case .int(let age) = person["age"],
                  case .double(let score) = person["score"], case .double(let balance) = person["balance"],
                  case .date(let createdAt) = person["createdAt"], case .bool(let active) = person["active"] else {
                continue
            }
            let first = length(person["firstName"]), last = length(person["lastName"])
            let email = length(person["email"]), city = length(person["city"])
            checksum &+= bench_checksum_row(id, first, last, email, city, age, score, balance,
                                            createdAt.timeIntervalSinceReferenceDate, active ? 1 : 0)
            rows += 1
        }
        return (rows, checksum)
    }

    static let fetchRequest = FetchRequest(entityName: "Person")

    static func filterRequest() throws -> FetchRequest {
        FetchRequest(entityName: "Person",
                     predicate: try Predicate(format: #"age > 18 AND lastName BEGINSWITH "S""#),
                     sortDescriptors: try SortSpec.parse("lastName:NO,firstName"))
    }

    static func fetch(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(fixtures.personStore, runs: runs) { fetchRequest }
    }

    static func filter(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(fixtures.personStore, runs: runs) { try filterRequest() }
    }

    static func memory(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(fixtures.millionStore, runs: runs) {
            var request = FetchRequest(entityName: "Person")
            request.fetchBatchSize = 500
            return request
        }
    }

    static func query(_ store: URL, runs: Int, _ makeRequest: () throws -> FetchRequest) throws -> Measurement {
        let coordinator = try open(store, model: try Models.people())
        var times: [Double] = []
        var result: (Int64, Int64) = (0, 0)
        for _ in 0..<runs {
            times.append(try time {
                let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                result = readAll(try context.fetch(try makeRequest()))
            })
        }
        return Measurement(times: times, rows: result.0, checksum: result.1, peakKB: 0)
    }

    // MARK: - d. import

    static func importJSON(_ fixtures: Fixtures, count: Int) throws -> JSON {
        let json = try JSON(data: try Data(contentsOf: fixtures.importJSON))
        guard case .array(let items) = json else { throw BenchError("the import fixture is not an array") }
        return count < items.count ? .array(Array(items.prefix(count))) : json
    }

    /// Checks an import's result through mrq: every person once, every
    /// department once.
    static func verifyImport(_ url: URL, model: ManagedObjectModel, people: Int) throws -> Int64 {
        let coordinator = try open(url, model: model)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let persons = try context.count(for: FetchRequest(entityName: "Person"))
        let departments = try context.count(for: FetchRequest(entityName: "Department"))
        let orphans = try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: "department == nil")))
        guard persons == people, departments == Int(bench_department_count()), orphans == 0 else {
            throw BenchError("import wrote \(persons) people, \(departments) departments, \(orphans) without one")
        }
        return Int64(persons)
    }

    static func importer(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let json = try importJSON(fixtures, count: scale.importPeople)
        let model = try Models.importing()
        let personEntity = model.entity(named: "Person")!
        let target = fixtures.scratch("import-mrq")
        var times: [Double] = []
        for _ in 0..<runs {
            times.append(try importerRun(json, into: personEntity, fixtures: fixtures, target: target))
        }
        let rows = try verifyImport(target, model: model, people: scale.importPeople)
        Fixtures.remove(target)
        return Measurement(times: times, rows: rows, checksum: 0, peakKB: 0)
    }

    /// One timed Importer run (import and save) of `json` into a fresh
    /// copy of the empty store.
    static func importerRun(_ json: JSON, into entity: EntityDescription, fixtures: Fixtures, target: URL) throws -> Double {
        try Fixtures.copy(fixtures.importTemplate, to: target)
        let coordinator = try open(target, model: entity.model!)
        defer { coordinator.removeStores() }
        return try time {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            try Importer(context: context).importArray(json, into: entity)
            try context.save()
        }
    }

    /// The importer everyone writes first: one fetch per row for the
    /// person, one for its department, then set every value by hand.
    ///
    /// Each fetch includes the pending inserts, so a row costs more the
    /// more rows came before it. The reported time extrapolates linearly
    /// from `naivePeople` rows, which flatters it; `fitted` also fits
    /// a·n + b·n² to one more run on half as many rows.
    static func naiveImport(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let model = try Models.importing()
        let target = fixtures.scratch("import-naive")
        let n = scale.naivePeople, half = scale.naivePeople / 2
        let full = try naiveItems(fixtures, count: n), halfItems = Array(full.prefix(half))
        var times: [Double] = []
        for _ in 0..<runs {
            times.append(try naiveRun(full, model: model, fixtures: fixtures, target: target))
        }
        let rows = try verifyImport(target, model: model, people: n)
        let halfTime = try naiveRun(halfItems, model: model, fixtures: fixtures, target: target)
        // The Importer on the very same rows: a ratio with nothing extrapolated.
        var importerTimes: [Double] = []
        for _ in 0..<scale.runs(5) {
            importerTimes.append(try importerRun(.array(full), into: model.entity(named: "Person")!, fixtures: fixtures, target: target))
        }
        Fixtures.remove(target)
        var m = Measurement(times: times, rows: rows, checksum: 0, peakKB: 0)
        m.extrapolation = Double(scale.importPeople) / Double(n)
        let same = median(importerTimes)
        m.note = String(format: "run on %d rows, where the Importer takes %@: %.0f× faster measured; ", n, formatTime(same), median(times) / same)
            + "extrapolated ×\(Int(m.extrapolation)) (linear: flatters the naive importer, whose rows cost more the more came before)"
        // t(n) = a·n + b·n² through (half, halfTime) and (n, median).
        let (n1, t1, n2, t2) = (Double(half), halfTime, Double(n), median(times))
        let a = (t1 * n2 * n2 - t2 * n1 * n1) / (n1 * n2 * (n2 - n1))
        let b = (t2 * n1 - t1 * n2) / (n1 * n2 * (n2 - n1))
        let big = Double(scale.importPeople)
        // Noise can make b negative: then no growth beyond linear was seen.
        m.fitted = b > 0 ? a * big + b * big * big : m.time
        m.fitNote = String(format: "a·n + b·n² through %d rows in %@ and %d in %@%@", half, formatTime(t1), n, formatTime(t2),
                           b > 0 ? "" : "; no quadratic term measured")
        return m
    }

    private static func naiveItems(_ fixtures: Fixtures, count: Int) throws -> [JSON] {
        guard case .array(let items) = try importJSON(fixtures, count: count) else { throw BenchError("not an array") }
        return items
    }

    /// One timed naive import of `items` into a fresh copy of the empty store.
    private static func naiveRun(_ items: [JSON], model: ManagedObjectModel, fixtures: Fixtures, target: URL) throws -> Double {
        try Fixtures.copy(fixtures.importTemplate, to: target)
        let coordinator = try open(target, model: model)
        defer { coordinator.removeStores() }
        return try time {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for item in items {
                guard case .object(let d) = item, case .int(let id)? = d["id"],
                      case .object(let dept)? = d["department"], case .string(let deptName)? = dept["name"] else {
                    throw BenchError("unexpected import item")
                }
                var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "personID == %@", FormatArgument(.int(id))))
                request.fetchLimit = 1
                let person = try context.fetch(request).first ?? context.insertObject(forEntityName: "Person")
                person["personID"] = .int(id)
                for (key, attribute) in [("first_name", "firstName"), ("last_name", "lastName"), ("email", "email"), ("city", "city")] {
                    if case .string(let s)? = d[key] { person[attribute] = .string(s) }
                }
                if case .int(let age)? = d["age"] { person["age"] = .int(age) }
                for key in ["score", "balance"] {
                    if case .double(let x)? = d[key] { person[key] = .double(x) } else if case .int(let n)? = d[key] { person[key] = .double(Double(n)) }
                }
                if case .int(let ms)? = d["created_at"] { person["createdAt"] = .date(Date(timeIntervalSince1970: Double(ms) / 1000)) }
                if case .bool(let b)? = d["active"] { person["active"] = .bool(b) }
                var departmentRequest = FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == %@", FormatArgument(.string(deptName))))
                departmentRequest.fetchLimit = 1
                let department = try context.fetch(departmentRequest).first ?? {
                    let created = context.insertObject(forEntityName: "Department")
                    created["name"] = .string(deptName)
                    return created
                }()
                person.setObject(department, forKey: "department")
            }
            try context.save()
        }
    }

    // MARK: - e. parse

    /// Twenty predicates of the kind people type, all valid on Person.
    static let predicates = [
        #"age > 18"#,
        #"age >= 21 AND age < 65"#,
        #"lastName BEGINSWITH "S""#,
        #"firstName == "Ada""#,
        #"firstName ==[c] "ada""#,
        #"email CONTAINS "@example.com""#,
        #"email ENDSWITH[cd] ".COM""#,
        #"city IN {"London", "Paris", "Berlin"}"#,
        #"age BETWEEN {18, 65}"#,
        #"score > 500.5 OR balance < 0"#,
        #"active == YES"#,
        #"NOT (active == NO)"#,
        #"city != nil"#,
        #"firstName LIKE "A*""#,
        #"lastName MATCHES "S[a-z]+""#,
        #"age > 18 AND lastName BEGINSWITH "S" AND active == YES"#,
        #"(age < 18 OR age > 65) AND city == "London""#,
        #"firstName BEGINSWITH[c] "a" AND email CONTAINS[c] "turing""#,
        #"lastName IN {"Smith", "Stone"} AND NOT (city IN {"Paris"})"#,
        #"id > 1000 AND score <= 250.25 AND balance > -100 AND age != 30"#,
    ]

    /// Lex + parse + translate, per predicate: `Predicate(format:)`, then
    /// `explain` of a count request for Person, which plans the request
    /// against the store and returns the SQL text and its bindings without
    /// running anything. A count keeps the SELECT list (per entity, not
    /// per predicate) out of the figure; the WHERE clause is all there.
    static func parse(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let store = fixtures.scratch("parse-translate")
        try Fixtures.copy(fixtures.personTemplate, to: store)
        let coordinator = try open(store, model: try Models.people())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func translate(_ text: String) throws -> FetchExplanation {
            var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: text))
            request.resultType = .count
            return try context.explain(request)
        }
        for text in predicates {   // every one parses and runs wholly in SQL
            let plan = try translate(text)
            precondition(plan.residual == nil && plan.sql.contains(" WHERE "), "\(text): \(plan.sql)")
        }
        var sizes: Int64 = 0
        var times: [Double] = []
        for _ in 0..<runs {
            let seconds = try time {
                for _ in 0..<scale.parseIterations {
                    for text in predicates {
                        let plan = try translate(text)
                        sizes &+= Int64(plan.sql.utf8.count + plan.bindings.count)
                    }
                }
            }
            times.append(seconds / Double(scale.parseIterations * predicates.count))
        }
        coordinator.removeStores()
        Fixtures.remove(store)
        return Measurement(times: times, rows: Int64(predicates.count), checksum: sizes, peakKB: 0)
    }

    /// Lex + parse only, per predicate: `Predicate(format:)`.
    static func parseOnly(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        var times: [Double] = []
        var nodes: Int64 = 0
        for text in predicates { _ = try Predicate(format: text) }  // every one parses
        for _ in 0..<runs {
            let seconds = try time {
                for _ in 0..<scale.parseIterations {
                    for text in predicates {
                        let predicate = try Predicate(format: text)
                        nodes &+= Int64(predicate.hashValue & 1)
                    }
                }
            }
            times.append(seconds / Double(scale.parseIterations * predicates.count))
        }
        return Measurement(times: times, rows: Int64(predicates.count), checksum: nodes, peakKB: 0)
    }

    /// The closest public path to parse + translate: `Predicate(format:)`
    /// then `count(for:)` on an empty store, which plans and translates
    /// the request, and steps one cached statement over no rows.
    static func parseAndCount(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let empty = fixtures.scratch("parse-empty")
        try Fixtures.copy(fixtures.personTemplate, to: empty)
        let coordinator = try open(empty, model: try Models.people())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var total = 0
        var times: [Double] = []
        let iterations = max(1, scale.parseIterations / 4)
        for _ in 0..<runs {
            let seconds = try time {
                for _ in 0..<iterations {
                    for text in predicates {
                        total += try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: text)))
                    }
                }
            }
            times.append(seconds / Double(iterations * predicates.count))
        }
        coordinator.removeStores()
        Fixtures.remove(empty)
        return Measurement(times: times, rows: Int64(predicates.count), checksum: Int64(total), peakKB: 0)
    }

    // MARK: - f. shell

    /// Where the built `mrq` is: `MRQ_BIN`, else the root package's
    /// release build, else its debug build.
    static func mrqBinary() -> URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["MRQ_BIN"] { candidates.append(URL(fileURLWithPath: path)) }
        candidates.append(root.appendingPathComponent(".build/release/mrq"))
        candidates.append(root.appendingPathComponent(".build/debug/mrq"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `mrq` once; its stdout and exit status.
    ///
    /// Spawns and waits directly: Foundation's `Process.waitUntilExit` on
    /// Linux polls its run loop every 50 ms, which timed the poll, not mrq
    /// (a program that only prints a number measured ~50 ms that way).
    static func runMRQ(_ binary: URL, _ arguments: [String]) throws -> (String, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, binary.path, &actions, nil, argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n > 0 { output += buffer[0..<n] } else if n == 0 || errno != EINTR { break }
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (String(decoding: output, as: UTF8.self), exitStatus)
    }

    static func shell(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        var m = Measurement(times: [], rows: 0, checksum: 0, peakKB: 0)
        guard let binary = mrqBinary() else {
            m.skipped = "skipped: no built mrq (swift build -c release)"
            return m
        }
        let arguments = ["--model", fixtures.model.path, "--store", fixtures.personStore.path, "-c", "count Person"]
        let (probe, status) = try runMRQ(binary, arguments)
        guard status == 0, probe.contains(String(scale.people)) else {
            m.skipped = "skipped: mrq has no session yet"
            return m
        }
        for _ in 0..<runs {
            m.times.append(try time { _ = try runMRQ(binary, arguments) })
        }
        m.rows = Int64(scale.people)
        m.note = binary.path.contains("/debug/") ? "debug build of mrq" : ""
        return m
    }
}

// MARK: - h. deep inheritance

extension MRQWorkloads {
    /// A chain of `levels` entities, each the parent of the next and each
    /// declaring one attribute, as the `contents` XML of an .xcdatamodel.
    static func chainModel(levels: Int) -> Data {
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
        for i in 0..<levels {
            let parent = i == 0 ? "" : #" parentEntity="E\#(i - 1)""#
            xml += #"<entity name="E\#(i)"\#(parent)><attribute name="a\#(i)" optional="YES" attributeType="Integer 32"/></entity>"#
        }
        return Data((xml + "</model>").utf8)
    }

    /// Loads the chain and lays out its store (SQLite itself refuses a
    /// table of more than 2,000 columns, so no file is made): the work
    /// that took 2.4 s at 800 levels and two minutes at 3,000 when each
    /// entity walked the chain above it.
    static func deepModel(levels: Int, runs: Int) throws -> Measurement {
        let data = chainModel(levels: levels)
        var times: [Double] = []
        var rows: Int64 = 0
        var checksum: Int64 = 0
        for _ in 0..<runs {
            times.append(try time {
                let model = try ManagedObjectModel(xcdatamodelContents: data)
                let mapping = try SchemaMapping(model: model)
                rows = Int64(model.entities.count)
                checksum = Int64(mapping.allTables.reduce(0) { $0 + $1.columns.count })
            })
        }
        return Measurement(times: times, rows: rows, checksum: checksum, peakKB: 0,
                           note: "\(levels) levels, \(checksum) columns")
    }
}
