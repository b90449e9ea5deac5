import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate

extension ShellSession {
    /// The columns of `history`: one row per change of Core Data's
    /// persistent history.
    static let historyColumns = [
        "transaction", "timestamp", "author", "bundleID", "contextName", "processID",
        "change", "entity", "pk", "properties",
    ]

    /// Whether `query` asks for the store's persistent history: its entity
    /// is `history` and the model has no entity of that name.
    func isHistoryQuery(_ query: Query) -> Bool {
        query.entity.text.lowercased() == "history"
            && !model.entities.contains { $0.name.caseInsensitiveCompare("history") == .orderedSame }
    }

    /// `history [where …] [sort …] [limit …] [offset …]`: the changes of
    /// the store's persistent history as rows, filtered, sorted and cut in
    /// memory.
    func runHistory(_ query: Query) throws -> ResultSet {
        var rows: [[String: Value]] = []
        for transaction in try coordinator.persistentHistory() {
            for change in transaction.changes {
                rows.append([
                    "transaction": .int(transaction.number),
                    "timestamp": .date(transaction.timestamp),
                    "author": transaction.author.map(Value.string) ?? .null,
                    "bundleID": transaction.bundleID.map(Value.string) ?? .null,
                    "contextName": transaction.contextName.map(Value.string) ?? .null,
                    "processID": transaction.processID.map(Value.string) ?? .null,
                    "change": .string(change.kind.rawValue),
                    "entity": .string(change.entityName),
                    "pk": .int(change.primaryKey),
                    "properties": .string(change.updatedProperties.joined(separator: ", ")),
                ])
            }
        }
        if let predicate = query.predicate {
            try checkHistoryKeys(in: predicate, range: query.range)
            let evaluator = Evaluator()
            rows = try rows.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        for key in query.sort.reversed() {
            let name = key.keyPath.joined(separator: ".")
            guard Self.historyColumns.contains(name) else {
                throw LocatedError(Self.unknownHistoryKey(name), key.range)
            }
            rows = rows.enumerated().sorted { a, b in
                let order = ValueOrdering.compare(a.element[name] ?? .null, b.element[name] ?? .null)
                if order == 0 { return a.offset < b.offset }
                return key.ascending ? order < 0 : order > 0
            }.map(\.element)
        }
        let start = min(query.offset ?? 0, rows.count)
        let end = query.limit.map { min(start + $0, rows.count) } ?? rows.count
        return ResultSet(columns: Self.historyColumns,
                         rows: rows[start..<end].map { row in Self.historyColumns.map { .value(row[$0] ?? .null) } })
    }

    /// The rows' keys, for the predicate checker: a mistyped key is an
    /// error, not a silent empty answer.
    private struct HistorySchema: PredicateSchema {
        func keys(ofEntity entity: String) -> [String]? { entity == "history" ? ShellSession.historyColumns : nil }
        func destination(ofEntity entity: String, key: String) -> String? { nil }
        func isToMany(entity: String, key: String) -> Bool { false }
    }

    private func checkHistoryKeys(in predicate: Predicate, range: SourceRange) throws {
        try predicate.validateKeys(entity: "history", schema: HistorySchema())
    }

    static func unknownHistoryKey(_ key: String) -> String {
        var text = "unknown key '\(key)' in history; its keys are \(historyColumns.joined(separator: ", "))"
        if let suggestion = Suggestions.closest(to: key, in: historyColumns) { text += "; did you mean '\(suggestion)'?" }
        return text
    }
}
