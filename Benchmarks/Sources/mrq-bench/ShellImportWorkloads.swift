import ActiveRecord
import CBaseline
import Foundation
import ObjectStore

// MARK: - m. shell import

/// `import Person from "people.json"` + `save` through the mrq binary, as
/// a user runs it, against the `Importer` on the same rows (import and
/// save, the JSON parsed before the clock starts, as in workload d) and
/// against the sqlite3 CLI inserting the same file with `json_each`.
enum ShellImportWorkloads {
    /// The file all three read: `scale.people` rows (200,000, 49 MB, at
    /// full scale), in the import fixture's form; written by the first
    /// workload that needs it.
    static func file(_ scale: Scale, _ fixtures: Fixtures) throws -> URL {
        let url = fixtures.directory.appendingPathComponent("shell-import.json")
        if !FileManager.default.fileExists(atPath: url.path) {
            try Dataset.importJSON(Dataset.people(scale.people)).write(to: url, atomically: true, encoding: .utf8)
        }
        return url
    }

    /// The baseline: the Importer and a save, in this process.
    static func importer(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let json = try JSON(data: try Data(contentsOf: file(scale, fixtures)))
        let model = try Models.importing()
        let person = model.entity(named: "Person")!
        let target = fixtures.scratch("shell-import-importer")
        var times: [Double] = []
        for _ in 0..<runs {
            times.append(try MRQWorkloads.importerRun(json, into: person, fixtures: fixtures, target: target))
        }
        let rows = try MRQWorkloads.verifyImport(target, model: model, people: scale.people)
        Fixtures.remove(target)
        return Measurement(times: times, rows: rows, checksum: 0, peakKB: 0)
    }

    /// `mrq --store S -c 'import Person from "F"' -c save`: process start,
    /// reading, parsing, importing with undo and progress, saving. Peak
    /// RSS is mrq's (see `ShellOutputWorkloads.peakKB`).
    static func shell(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let binary = MRQWorkloads.mrqBinary() else { return ShellOutputWorkloads.skipped(.mrq) }
        let target = fixtures.scratch("shell-import-mrq")
        let arguments = ["--store", target.path, "-c", "import Person from \"\(try file(scale, fixtures).path)\"", "-c", "save"]
        return try measure(binary.path, arguments, target: target, scale, fixtures, runs: runs)
    }

    /// The sqlite3 CLI: the departments, then the people, each read with
    /// `json_each(readfile(…))`, in one transaction, into the same empty
    /// store (mrq's layout; dates as seconds since 2001).
    static func sqlite3(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let cli = ShellOutputWorkloads.sqlite3CLI() else { return ShellOutputWorkloads.skipped(.sqlite3) }
        let json = try file(scale, fixtures).path.replacingOccurrences(of: "'", with: "''")
        let field = { (key: String) in "json_extract(value, '$.\(key)')" }
        let sql = """
            BEGIN;
            INSERT INTO Department (name) SELECT DISTINCT \(field("department.name")) FROM json_each(readfile('\(json)'));
            INSERT INTO Person (personID, firstName, lastName, email, age, score, balance, city, createdAt, active, department)
              SELECT \(field("id")), \(field("first_name")), \(field("last_name")), \(field("email")), \(field("age")),
                     \(field("score")), \(field("balance")), \(field("city")), \(field("created_at")) / 1000.0 - 978307200,
                     \(field("active")), (SELECT _pk FROM Department WHERE name = \(field("department.name")))
              FROM json_each(readfile('\(json)'));
            COMMIT;
            """
        let target = fixtures.scratch("shell-import-sqlite3")
        return try measure(cli, [target.path, sql], target: target, scale, fixtures, runs: runs)
    }

    /// Runs `program` on a fresh copy of the empty store `runs` times, then
    /// once more for its peak RSS, and checks what it imported.
    private static func measure(_ program: String, _ arguments: [String], target: URL, _ scale: Scale, _ fixtures: Fixtures,
                                runs: Int) throws -> Measurement {
        var m = Measurement(times: [], rows: 0, checksum: 0, peakKB: 0)
        for _ in 0..<runs {
            try Fixtures.copy(fixtures.importTemplate, to: target)
            m.times.append(try ShellOutputWorkloads.run(program, arguments, toDevNull: true).seconds)
        }
        m.rows = try MRQWorkloads.verifyImport(target, model: try Models.importing(), people: scale.people)
        try Fixtures.copy(fixtures.importTemplate, to: target)
        m.peakKB = try ShellOutputWorkloads.peakKB(program, arguments, toDevNull: true)
        Fixtures.remove(target)
        if m.peakKB <= 0 { m.note = "no /usr/bin/time: peak RSS not measured" }
        return m
    }
}
