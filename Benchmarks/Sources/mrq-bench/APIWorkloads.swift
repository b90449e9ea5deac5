import ActiveRecord
import Foundation
import ObjectStore
import Predicates

/// The Swift API's workloads of issue 19: what a date column costs an
/// import.
enum APIWorkloads {
    // MARK: - i. dates

    /// The import fixture with `created_at` as text in `yyyy-MM-dd'T'HH:mm:ssZ`
    /// (written once, outside the timing) or left as milliseconds.
    static func datedJSON(_ fixtures: Fixtures, count: Int, asText: Bool) throws -> JSON {
        let json = try MRQWorkloads.importJSON(fixtures, count: count)
        guard asText, case .array(let items) = json else { return json }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return .array(try items.map { item in
            guard case .object(var object) = item, case .int(let millis)? = object["created_at"] else {
                throw BenchError("an import row without created_at")
            }
            object["created_at"] = .string(formatter.string(from: Date(timeIntervalSince1970: Double(millis / 1000))))
            return .object(object)
        })
    }

    /// The import model with `createdAt` read as text in a date format, or
    /// as milliseconds (`UnixTime`).
    static func datedModel(asText: Bool) throws -> ManagedObjectModel {
        let model = try Models.importing()
        let createdAt = model.entity(named: "Person")!.attribute(named: "createdAt")!
        createdAt.userInfo["dateFormat"] = asText ? "yyyy-MM-dd'T'HH:mm:ssZ" : "UnixTime"
        return model
    }

    /// Import and save into an in-memory store, so that the difference
    /// between the two forms is reading the dates.
    static func datedImport(_ scale: Scale, _ fixtures: Fixtures, runs: Int, asText: Bool) throws -> Measurement {
        let json = try datedJSON(fixtures, count: scale.importPeople, asText: asText)
        let model = try datedModel(asText: asText)
        let entity = model.entity(named: "Person")!
        var times: [Double] = []
        var checksum: Int64 = 0
        for _ in 0..<runs {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addSQLiteStore(at: nil)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            times.append(try time {
                try Importer(context: context).importArray(json, into: entity)
                try context.save()
            })
            let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "createdAt > %@", Date(timeIntervalSince1970: 0)))
            checksum = Int64(try context.count(for: request))
        }
        return Measurement(times: times, rows: Int64(scale.importPeople), checksum: checksum, peakKB: 0)
    }
}
