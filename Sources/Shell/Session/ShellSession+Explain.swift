import ActiveRecord
import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// The sections of an `explain`, each a title and an indented body.
struct Explanation {
    private(set) var lines: [String] = []

    mutating func section(_ title: String, _ body: String) {
        lines.append(title)
        lines.append(contentsOf: body.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 })
    }

    var text: String { lines.joined(separator: "\n") }
}

extension ShellSession {
    /// `explain STATEMENT`, for every statement: what it will do, the
    /// predicate as parsed, the SQL that runs with its bound values (taken
    /// from the code that runs it) and what is done in memory after, what
    /// a save would write, and the Swift call. Nothing that changes data
    /// runs: queries are planned, not run; values an insert or update
    /// would take from `first …` are fetched (reads).
    func explain(_ statement: Statement) throws -> String {
        var statement = statement
        while case .explain(let inner) = statement { statement = inner }
        var out = Explanation()
        try explain(statement, into: &out)
        languageSections(statement, into: &out)
        return out.text
    }

    /// What the statement writes that Apple's NSPredicate would not parse
    /// (mrq's additions, with Apple's spelling), and what Core Data's own
    /// SQLite store would refuse to fetch.
    private func languageSections(_ statement: Statement, into out: inout Explanation) {
        let uses = additions(in: statement, source: statementSource)
        if !uses.isEmpty {
            out.section("not in Apple's NSPredicate:", uses.map(\.message).joined(separator: "\n"))
        }
        let limits = CoreDataLimits.notes(for: statement.predicates.map(\.predicate))
        if !limits.isEmpty { out.section("core data:", limits.joined(separator: "\n")) }
    }

    /// `shown`: the statement's objects are printed (read as
    /// ``RowPlan`` says), not bound to a variable.
    private func explain(_ statement: Statement, into out: inout Explanation, shown: Bool = true) throws {
        switch statement {
        case .query(let query) where isHistoryQuery(query), .count(let query) where isHistoryQuery(query):
            out.section("does:", "reads the store's persistent history (Core Data's ATRANSACTION and ACHANGE tables), "
                        + "one row per change; where, sort, limit and offset apply to those rows in memory")
            sqlSections(try coordinator.explainPersistentHistory(), into: &out)
        case .query(let query):
            try explainFetch(query, does: "fetches the matching \(query.entity.text) objects", kind: "fetch", shown: shown, into: &out)
        case .first(var query):
            query.limit = 1
            try explainFetch(query, does: "fetches the first matching \(query.entity.text)", kind: "first", shown: shown, into: &out)
        case .count(let query):
            try explainFetch(query, does: "counts the matching \(query.entity.text) objects", kind: "count", into: &out)
        case .select(let select):
            try explainSelect(select, into: &out)
        case .aggregate(let aggregate):
            try explainAggregate(aggregate, into: &out)
        case .insert(let name, let assignments):
            let entity = try self.entity(name)
            out.section("does:", "inserts one \(entity.name) into the context" + (assignments.isEmpty ? "" : ", with:\n")
                        + assignments.map { "  " + describe($0) }.joined(separator: "\n")
                        + "\nnothing is written until save")
            try explainValueSources(assignments, into: &out)
            out.section("at save:", try saveSQL { try context.saveSQL(inserting: entity) })
            out.section("swift:", "let object = context.insertObject(forEntityName: \(Printer.quote(entity.name)))"
                        + assignments.map { "\nobject[\(Printer.quote($0.key.text))] = …" }.joined())
        case .update(let query, let assignments):
            let entity = try self.entity(query.entity)
            try explainFetch(query, does: "sets, on each matching \(entity.name) in the context:\n"
                             + assignments.map { "  " + describe($0) }.joined(separator: "\n")
                             + "\nnothing is written until save", kind: "update", into: &out) { out in
                try explainValueSources(assignments, into: &out)
                out.section("at save:", try saveSQL { try context.saveSQL(updating: entity, keys: assignments.map(\.key.text)) }
                            + "\n  (one per changed object)")
            }
        case .delete(let query):
            let entity = try self.entity(query.entity)
            try explainFetch(query, does: "deletes the matching \(entity.name) objects from the context, "
                             + "running their delete rules\(deleteRules(of: entity)), whose reads are prefetched with them; "
                             + "nothing is written until save",
                             kind: "delete", into: &out) { out in
                out.section("at save:", try saveSQL { try context.saveSQL(deleting: entity) } + "\n  (one per deleted object)")
            }
        case .truncate(let name):
            let entity = try self.entity(name)
            try explainFetch(Query(entity: name, range: name.range), does: "deletes every \(entity.name) from the context, "
                             + "running their delete rules\(deleteRules(of: entity)), whose reads are prefetched with them; "
                             + "nothing is written until save",
                             kind: "delete", into: &out) { out in
                out.section("at save:", try saveSQL { try context.saveSQL(deleting: entity) } + "\n  (one per deleted object)")
            }
        case .directUpdate(let query, let assignments):
            try explainDirectUpdate(query, assignments: assignments, into: &out)
        case .directDelete(let query):
            try explainDirectDelete(query, into: &out)
        case .importJSON(let name, let path, let range):
            try explainImport(entity: try self.entity(name), path: path, range: range, into: &out)
        case .save:
            explainSave(into: &out)
        case .rollback:
            let pending = pendingChanges
            out.section("does:", pending.isEmpty ? "nothing: there are no unsaved changes"
                        : "discards the \(pending.total) unsaved change\(pending.total == 1 ? "" : "s") (\(pending)); the store is not touched")
        case .undo:
            out.section("does:", undoManager.canUndo ? "undoes the last statement's changes in the context (\(pendingChanges.total) unsaved now); the store is not touched"
                        : "nothing: there is nothing to undo since the last save")
        case .redo:
            out.section("does:", undoManager.canRedo ? "redoes the last undone statement's changes in the context; the store is not touched"
                        : "nothing: there is nothing to redo")
        case .entity(let declaration):
            try explainDeclaration(declaration, into: &out)
        case .letBinding(let name, let value):
            out.section("does:", "binds $\(name.text) to the result of the statement below; a query binds its objects, "
                        + "'first …' one object, a count or an aggregate its value")
            try explain(value, into: &out, shown: false)
        case .expression(let expression):
            out.section("does:", "evaluates the expression in memory and prints its value; no SQL runs")
            out.section("tree:", Predicate(.comparison(Comparison(.direct, .equal, expression, .constant(.null)))).treeDescription
                .split(separator: "\n").dropFirst().dropLast().map { String($0.dropFirst(2)) }.joined(separator: "\n"))
            out.section("canonical:", expression.format)
        case .templates:
            out.section("does:", "lists the model's fetch request templates and their $variables; no SQL runs")
        case .template(let template):
            try explainTemplate(template, shown: shown, into: &out)
        case .explain:
            preconditionFailure("unwrapped by explain(_:)")
        }
    }

    // MARK: - Fetches

    /// A query's sections: what it does, the predicate, the fetch request,
    /// its SQL and what is done in memory, and the Swift call.
    /// `then` adds sections before the Swift call. A fetch whose objects
    /// are `shown` is explained as it runs: by its ``RowPlan``.
    private func explainFetch(_ query: Query, does: String, kind: String, shown: Bool = false, into out: inout Explanation,
                              then: (inout Explanation) throws -> Void = { _ in }) throws {
        var (request, entity) = try kind == "delete" ? deleteRequest(for: query) : self.request(for: query)
        if kind == "count" { request.resultType = .count }
        if shown { request = try rowPlan(for: request).request }
        out.section("does:", does)
        predicateSections(query.predicate, into: &out)
        requestSection(request, entity: entity, into: &out)
        try fetchSections(request, into: &out)
        try then(&out)
        out.section("swift:", swiftCall(kind: kind, entity: entity, request: request))
    }

    private func explainSelect(_ select: SelectQuery, into out: inout Explanation) throws {
        let plan = try selectPlan(select)
        let columns = plan.columns.map(\.name).joined(separator: ", ")
        out.section("does:", "fetches \(columns) of the matching \(plan.entity.name) objects"
                    + (plan.dictionary == nil ? ": the objects are fetched and the columns computed in memory ("
                       + (context.hasChanges ? "the context has unsaved changes, which a dictionary fetch does not see"
                          : "a column is one SQL cannot compute with the same meaning") + ")"
                       : ", in SQL"))
        predicateSections(select.query.predicate, into: &out)
        requestSection(plan.dictionary ?? plan.objects, entity: plan.entity, into: &out)
        try fetchSections(plan.dictionary ?? plan.objects, into: &out)
        if plan.dictionary == nil {
            out.section("computed in memory:", plan.columns.map { "\($0.name) on each object" }.joined(separator: "\n")
                        + (select.distinct ? "\nthen repeated rows are dropped" : ""))
        }
        out.section("swift:", dictionarySwiftCall(plan.dictionary, entity: plan.entity)
                    ?? swiftCall(kind: "fetch", entity: plan.entity, request: plan.objects))
    }

    private func explainAggregate(_ aggregate: AggregateQuery, into out: inout Explanation) throws {
        let plan = try aggregatePlan(aggregate)
        let groups = aggregate.groupBy.map { $0.path.joined(separator: ".") }
        out.section("does:", "computes \(plan.name) of the matching \(plan.entity.name) objects"
                    + (groups.isEmpty ? "" : " per \(groups.joined(separator: ", "))")
                    + (plan.dictionary == nil ? ": the objects are fetched and grouped in memory (the context has unsaved changes, "
                       + "which a dictionary fetch does not see, or a key SQL cannot group by)" : ", in SQL"))
        predicateSections(aggregate.query.predicate, into: &out)
        requestSection(plan.dictionary ?? plan.objects, entity: plan.entity, into: &out)
        try fetchSections(plan.dictionary ?? plan.objects, into: &out)
        if plan.dictionary == nil {
            var steps = ["the objects are grouped by " + (groups.isEmpty ? "nothing (one group)" : groups.joined(separator: ", ")),
                         "\(plan.name) is computed per group"]
            if let having = aggregate.having { steps.append("groups are kept where \(having.format)") }
            if !plan.sort.isEmpty || !groups.isEmpty { steps.append("rows are sorted") }
            if let limit = aggregate.query.limit { steps.append("the first \(limit) are kept") }
            out.section("computed in memory:", steps.joined(separator: "\n"))
        }
        out.section("swift:", dictionarySwiftCall(plan.dictionary, entity: plan.entity)
                    ?? swiftCall(kind: "fetch", entity: plan.entity, request: plan.objects))
    }

    /// Where a query's predicate is written: tokens, tree, canonical text.
    private func predicateSections(_ predicate: Predicate?, into out: inout Explanation) {
        guard let predicate else { return }
        let text = predicate.format
        let tokens = (try? Lexer.tokenize(text)) ?? []
        out.section("tokens:", tokens.filter { $0.kind != .end }.map { $0.description(in: text) }.joined(separator: " "))
        out.section("tree:", predicate.treeDescription)
        out.section("canonical:", text)
    }

    private func requestSection(_ request: FetchRequest, entity: EntityDescription, into out: inout Explanation) {
        var text = "entity: \(entity.name)"
        if let predicate = request.predicate { text += "\npredicate: \(predicate.format)" }
        for (name, variable) in request.objectVariables.sorted(by: { $0.key < $1.key }) {
            let ids = variable.ids
            text += "\n$\(name): " + (ids.count == 1 ? "" : "\(ids.count) objects: ")
                + ids.prefix(10).map { "\($0.entity.name) \($0.isTemporaryID ? "(unsaved)" : "#\($0.primaryKey)")" }.joined(separator: ", ")
                + (ids.count > 10 ? ", …" : "")
        }
        if let properties = request.propertiesToFetch {
            text += "\nproperties: " + properties.map(\.name).joined(separator: ", ")
        }
        if let groups = request.propertiesToGroupBy { text += "\ngroup by: " + groups.joined(separator: ", ") }
        if let having = request.havingPredicate { text += "\nhaving: \(having.format)" }
        if request.returnsDistinctResults { text += "\ndistinct: yes" }
        if !request.sortDescriptors.isEmpty {
            text += "\nsort: " + request.sortDescriptors.map { "\($0.key) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
        }
        if request.fetchLimit > 0 { text += "\nlimit: \(request.fetchLimit)" }
        if request.fetchBatchSize > 0 { text += "\nbatch size: \(request.fetchBatchSize)" }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            text += "\nprefetch: " + request.relationshipKeyPathsForPrefetching.joined(separator: ", ")
        }
        if request.fetchOffset > 0 { text += "\noffset: \(request.fetchOffset)" }
        text += "\nincludes sub-entities: \(request.includesSubentities ? "yes" : "no"), includes pending changes: "
            + (request.resultType == .dictionary || !request.includesPendingChanges ? "no" : "yes")
        out.section("fetch request:", text)
    }

    /// The SQL a fetch runs and what memory does after (see
    /// `sqlSections`), in the store's own SQL (SQLite's or PostgreSQL's).
    private func fetchSections(_ request: FetchRequest, into out: inout Explanation) throws {
        try sqlSections(context.explain(request), of: request, into: &out)
    }

    /// Each statement with its bound values, then what memory does for
    /// `request` (nil for a batch request).
    private func sqlSections(_ plan: FetchExplanation, of request: FetchRequest? = nil, into out: inout Explanation) {
        let purposes = ["keys": "the keys of the saved objects that match", "ids": "the matching keys",
                        "changed": "the saved objects with unsaved changes it counted",
                        "update": "for the keys found", "delete": "for the keys found",
                        "delete rule": "a delete rule, for the keys found", "key bookkeeping": "the highest key kept",
                        "range check": "each value must fit its attribute", "update each": "the values computed in memory",
                        "batch": "each batch of objects, by key",
                        "prefetch": "the related objects of each batch not loaded yet, by key",
                        "prefetch many": "the related objects of each batch, their keys as a JSON list"]
        for (i, step) in plan.steps.enumerated() {
            var title = "sql:"
            if plan.steps.count > 1 {
                title = "sql (\(i + 1) of \(plan.steps.count)" + (purposes[step.purpose].map { ", \($0)" } ?? "") + "):"
            }
            out.section(title, step.sql)
            if !step.bindings.isEmpty {
                out.section("bindings:", step.bindings.enumerated().map { n, binding in
                    let mark = plan.parameter(n + 1)
                    switch binding {
                    case .value(let value): return "\(mark) = \(Printer.format(Expression(.constant(value))))"
                    case .keysFoundBefore:
                        return step.purpose == "dictionaries" || step.purpose == "prefetch many"
                            || (plan.engine == .postgres && step.purpose == "update")
                            ? "\(mark) = the keys statement \(i) finds, as a JSON list"
                            : "\(mark)… = the keys statement \(i) finds"
                    case .keysOfPendingChanges:
                        return "\(mark) = the keys of the saved objects with unsaved changes, as a JSON list"
                    case .rowsPlusPendingChanges(let rows):
                        return "\(mark) = \(rows) + the number of saved objects with unsaved changes"
                    case .keys(let count):
                        return plan.engine == .postgres ? "\(mark) = the \(Self.countText(count, "key", "keys")) found, as a list"
                            : "\(mark)… = the \(Self.countText(count, "key", "keys")) found"
                    }
                }.joined(separator: "\n"))
            }
            if i == 0, plan.steps.count > 1, let residual = plan.residual {
                out.section("in memory:", Self.residualNote(residual, plan.engine))
            }
        }
        var memory: [String] = []
        if plan.steps.count == 1, let residual = plan.residual { memory.append(Self.residualNote(residual, plan.engine)) }
        if plan.mergesPendingChanges {
            memory.append("unsaved changes merged: matching inserted objects added, deleted ones left out, changed ones tested again")
        }
        if plan.sortsInMemory { memory.append("sorted in memory: a sort key is not a column") }
        if plan.readsInPages, let request {
            let end = request.fetchLimit + max(request.fetchOffset, 0)
            memory.append("read in pages of the sorted rows (the first \(max(2 * end, 16)) rows, then each page twice the last)"
                + " until \(end) match; limit and offset applied in memory")
        } else if plan.windowsInMemory, let request, request.fetchLimit > 0 || request.fetchOffset > 0 {
            memory.append("limit and offset applied in memory")
        }
        if let having = plan.havingResidual { memory.append("having \(having.format): evaluated on the rows SQL returns") }
        if !memory.isEmpty { out.section("in memory:", memory.joined(separator: "\n")) }
    }

    private static func residualNote(_ residual: Predicate, _ engine: FetchExplanation.Engine) -> String {
        "\(residual.format)  (\(engine.rawValue) cannot say this with the same meaning; evaluated on the rows SQL returns)"
    }

    // MARK: - Changes

    /// `key = value` as an assignment reads.
    private func describe(_ assignment: Assignment) -> String {
        switch assignment.value {
        case .expression(let expression): return "\(assignment.key.text) = \(expression.format)"
        case .first(let query): return "\(assignment.key.text) = the first \(query.entity.text)\(query.predicate.map { " where \($0.format)" } ?? "")"
        case .all(let query): return "\(assignment.key.text) = the \(query.entity.text) objects\(query.predicate.map { " where \($0.format)" } ?? "")"
        }
    }

    /// The fetches that give an insert's or update's related objects.
    private func explainValueSources(_ assignments: [Assignment], into out: inout Explanation) throws {
        for assignment in assignments {
            var query: Query
            switch assignment.value {
            case .first(let q): query = q; query.limit = 1
            case .all(let q): query = q
            case .expression: continue
            }
            let (request, _) = try self.request(for: query)
            var inner = Explanation()
            try fetchSections(request, into: &inner)
            out.section("\(assignment.key.text) from:", inner.text)
        }
    }

    /// ` (department: nullify …)`, or nothing without relationships.
    private func deleteRules(of entity: EntityDescription) -> String {
        let rules = entity.relationships.filter { !$0.isTransient }.map { "\($0.name): \($0.deleteRule.rawValue.lowercased())" }
        return rules.isEmpty ? "" : " (" + rules.joined(separator: ", ") + ")"
    }

    /// The statement text of a save, or why a save writes none.
    private func saveSQL(_ body: () throws -> String) throws -> String {
        do {
            return try body()
        } catch let error as StoreError {
            return "written by the store itself: \(error.message)"
        }
    }

    private func explainDirectUpdate(_ query: Query, assignments: [Assignment], into out: inout Explanation) throws {
        let (request, entity) = try directRequest(for: query, verb: "update")
        var batch = BatchUpdateRequest(entityName: entity.name, predicate: request.predicate,
                                       propertiesToUpdate: try directProperties(assignments, entity: entity))
        batch.objectVariables = request.objectVariables
        let (plan, inMemory) = try context.explain(batch)
        out.section("does:", "updates the matching rows in the store at once, in one transaction, without loading objects:\n"
                    + assignments.map { "  " + describe($0) }.joined(separator: "\n")
                    + "\nunsaved changes are not seen; live objects are refreshed afterwards"
                    + "\nthe statements are a dry run's: its reads ran on the store's data, nothing was written")
        predicateSections(query.predicate, into: &out)
        sqlSections(plan, into: &out)
        if !inMemory.isEmpty {
            out.section("in memory:", "\(inMemory.joined(separator: ", ")) computed per object, then written a few hundred rows a statement")
        }
        out.section("swift:", swiftCall(kind: "direct update", entity: entity, request: request))
    }

    private func explainDirectDelete(_ query: Query, into out: inout Explanation) throws {
        let (request, entity) = try directRequest(for: query, verb: "delete")
        var batch = BatchDeleteRequest(entityName: entity.name, predicate: request.predicate)
        batch.objectVariables = request.objectVariables
        let plan = try context.explain(batch)
        out.section("does:", "deletes the matching rows in the store at once, in one transaction, running the delete rules in SQL"
                    + deleteRules(of: entity) + "; unsaved changes are not seen"
                    + "\nthe statements are a dry run's: its reads ran on the store's data, nothing was written")
        predicateSections(query.predicate, into: &out)
        sqlSections(plan, into: &out)
        out.section("swift:", swiftCall(kind: "direct delete", entity: entity, request: request))
    }

    private func explainImport(entity: EntityDescription, path: String, range: SourceRange, into out: inout Explanation) throws {
        let reader: JSONArrayReader
        do {
            reader = JSONArrayReader(bytes: try ShellFiles.readData(self.path(path), shownAs: path))
        } catch {
            throw LocatedError(error.message, range)
        }
        var records = "the records"
        if reader.isArray {
            let count = reader.remainingCount()
            records = "the \(count) record\(count == 1 ? "" : "s")"
        }
        var key: String?
        var current: EntityDescription? = entity
        while let e = current, key == nil {
            key = e.userInfo["relatedByAttribute"]
            current = e.parent
        }
        let uniquing = (key ?? (entity.name.prefix(1).lowercased() + entity.name.dropFirst() + "ID"))
        let mapped = entity.attributes.compactMap { attribute in attribute.userInfo["mappedKeyName"].map { "\($0) → \(attribute.name)" } }
        out.section("does:", "reads \(records) of \(path) into \(entity.name) objects in the context"
                    + (entity.attribute(named: uniquing) != nil ? "; a record whose \(uniquing) an existing \(entity.name) has updates it, "
                       + "the others are inserted" : "; every record is inserted")
                    + (mapped.isEmpty ? "" : "\nkeys read: " + mapped.joined(separator: ", "))
                    + "\nnothing is written until save")
        out.section("at save:", try saveSQL { try context.saveSQL(inserting: entity) } + "\n  (one per new object; changed objects are updated)")
        out.section("swift:", "let objects = try Importer(context: context).importArray(try JSON(data: data), into: entity)")
    }

    private func explainSave(into out: inout Explanation) {
        let pending = pendingChanges
        guard !pending.isEmpty else {
            out.section("does:", "nothing: there are no unsaved changes")
            return
        }
        out.section("does:", "writes the \(pending.total) unsaved change\(pending.total == 1 ? "" : "s") (\(pending)) "
                    + "to the store in one transaction; undo stops at the save")
        var statements: [String] = []
        func add(_ count: Int, _ what: String, _ sql: () throws -> String) {
            guard count > 0 else { return }
            statements.append(((try? saveSQL(sql)) ?? "") + "\n  (\(count) \(what))")
        }
        for changes in pending.entities {
            guard let entity = model.entity(named: changes.entity) else { continue }
            add(changes.deleted, "deleted", { try context.saveSQL(deleting: entity) })
            add(changes.inserted, "inserted", { try context.saveSQL(inserting: entity) })
            let keys = Set(context.updatedObjects.filter { $0.entity === entity }.flatMap { $0.changedValues.keys })
            add(changes.updated, "updated", { try context.saveSQL(updating: entity, keys: keys.sorted()) })
        }
        out.section("sql:", statements.joined(separator: "\n"))
        out.section("swift:", "try context.save()")
    }

    private func explainDeclaration(_ declaration: EntityDeclaration, into out: inout Explanation) throws {
        guard !context.hasChanges else {
            throw LocatedError(ShellDiagnostics.pendingChangesBlockSchema(), declaration.name.range)
        }
        let (newModel, created, notes) = try declaredModel(declaration)
        var text = (created ? "creates" : "changes") + " entity \(declaration.name.text)" + notes.map { "; \($0)" }.joined()
        if let preview = try coordinator.migrationPreview(to: newModel) {
            text += "\nmigrates the store: " + preview.changes.joined(separator: "; ")
            if preview.dropsData { text += "\nand would drop data (\(preview.lossSummary)): refused unless the store is emptied first" }
        } else {
            text += "\nthe store needs no migration"
        }
        out.section("does:", text)
    }

    private func explainTemplate(_ template: TemplateFetch, shown: Bool, into out: inout Explanation) throws {
        var (request, entity) = try templateRequest(template)
        let counts = request.resultType == .count
        if !counts { request.resultType = .managedObject }
        if !counts && shown { request = try rowPlan(for: request).request }
        out.section("does:", counts ? "counts the \(entity.name) objects the template matches" : "fetches the \(entity.name) objects the template matches")
        let stored = model.fetchRequestTemplate(forName: template.name.text)?.predicate
        out.section("template:", "\(template.name.text): \(entity.name)" + (stored.map { " where \($0.format)" } ?? ""))
        predicateSections(request.predicate, into: &out)
        requestSection(request, entity: entity, into: &out)
        try fetchSections(request, into: &out)
        out.section("swift:", templateSwiftCall(template, count: counts))
    }

    // MARK: - Swift

    /// The same template fetch in Swift: Core Data's call, with the values
    /// given.
    func templateSwiftCall(_ template: TemplateFetch, count: Bool) -> String {
        var values = scalarVariables()
        for (variable, expression) in template.variables {
            if let value = try? evaluate(expression) { values[variable.text] = value }
        }
        let needed = model.substitutionVariables(ofTemplate: template.name.text)
        let dictionary = needed.isEmpty ? "[:]" : "[" + needed.map { name in
            Printer.quote(name) + ": " + (values[name].map { Printer.format(Expression(.constant($0))) } ?? "…")
        }.joined(separator: ", ") + "]"
        return "let request = try model.fetchRequestFromTemplate(withName: \(Printer.quote(template.name.text)), "
            + "substitutionVariables: \(dictionary))\n"
            + (count ? "let count = try context.count(for: request)" : "let results = try context.fetch(request)")
    }

    /// A dictionary fetch in Swift.
    private func dictionarySwiftCall(_ request: FetchRequest?, entity: EntityDescription) -> String? {
        guard let request, let properties = request.propertiesToFetch else { return nil }
        var lines = ["var request = FetchRequest(entityName: \(Printer.quote(entity.name)))"]
        if let predicate = request.predicate { lines.append("request.predicate = try Predicate(format: \(Printer.quote(predicate.format)))") }
        lines.append("request.resultType = .dictionary")
        lines.append("request.propertiesToFetch = [" + properties.map { property in
            if let expression = property.expression {
                return "PropertyToFetch(expression: try Expression(format: \(Printer.quote(expression.format))), as: \(Printer.quote(property.name)))"
            }
            if let function = property.function {
                return "PropertyToFetch(.\(function.rawValue), of: \(Printer.quote(property.keyPath)), as: \(Printer.quote(property.name)))"
            }
            return "PropertyToFetch(keyPath: \(Printer.quote(property.keyPath)))"
        }.joined(separator: ", ") + "]")
        if let groups = request.propertiesToGroupBy { lines.append("request.propertiesToGroupBy = [" + groups.map(Printer.quote).joined(separator: ", ") + "]") }
        if let having = request.havingPredicate { lines.append("request.havingPredicate = try Predicate(format: \(Printer.quote(having.format)))") }
        if request.returnsDistinctResults { lines.append("request.returnsDistinctResults = true") }
        if !request.sortDescriptors.isEmpty {
            lines.append("request.sortDescriptors = try SortSpec.parse(" + Printer.quote(request.sortDescriptors.map(\.description).joined(separator: ",")) + ")")
        }
        if request.fetchLimit > 0 { lines.append("request.fetchLimit = \(request.fetchLimit)") }
        lines.append("let (columns, rows) = try context.fetchRows(request)")
        return lines.joined(separator: "\n")
    }

    /// The same request through mrq's MagicalRecord API.
    func swiftCall(kind: String, entity: EntityDescription, request: FetchRequest) -> String {
        var arguments: [String] = []
        if let predicate = request.predicate { arguments.append("where: \(Printer.quote(predicate.format))") }
        if !request.sortDescriptors.isEmpty {
            let spec = request.sortDescriptors.map { $0.key + ($0.ascending ? "" : ":NO") }.joined(separator: ",")
            arguments.append("sortedBy: \(Printer.quote(spec))")
        }
        arguments.append("in: context")
        switch kind {
        case "count":
            return request.predicate.map { "try \(entity.name).count(where: \(Printer.quote($0.format)), in: context)" }
                ?? "try \(entity.name).count(in: context)"
        case "first":
            return "try \(entity.name).findFirst(\(arguments.joined(separator: ", ")))"
        case "delete":
            return "try \(entity.name).deleteAll(matching: \(Printer.quote(request.predicate?.format ?? "TRUEPREDICATE")), in: context)"
        case "direct delete":
            return "try context.execute(BatchDeleteRequest(entityName: \(Printer.quote(entity.name)), predicate: \(request.predicate.map { "try Predicate(format: \(Printer.quote($0.format)))" } ?? "nil")))"
        case "direct update":
            return "try context.execute(BatchUpdateRequest(entityName: \(Printer.quote(entity.name)), predicate: \(request.predicate.map { "try Predicate(format: \(Printer.quote($0.format)))" } ?? "nil"), propertiesToUpdate: […]))"
        case "update":
            return "for object in try \(entity.name).findAll(\(arguments.joined(separator: ", "))) { … }"
        default:
            var call = "try \(entity.name).findAll(\(arguments.joined(separator: ", ")))"
            if request.fetchLimit > 0 || request.fetchOffset > 0 {
                var builder = "var request = \(entity.name).requestAll(\(arguments.joined(separator: ", ")))"
                if request.fetchLimit > 0 { builder += "\nrequest.fetchLimit = \(request.fetchLimit)" }
                if request.fetchOffset > 0 { builder += "\nrequest.fetchOffset = \(request.fetchOffset)" }
                call = builder + "\nlet results = try context.execute(request)"
            }
            return call
        }
    }
}
