import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

/// Writes every callback as a line.
private final class Recorder: FetchedResultsControllerDelegate {
    var lines: [String] = []

    func take() -> [String] {
        defer { lines = [] }
        return lines
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController) { lines.append("will") }
    func controllerDidChangeContent(_ controller: FetchedResultsController) { lines.append("did") }
    func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsController.Section,
                    atSectionIndex sectionIndex: Int, for type: ResultsChangeType) {
        lines.append("section \(type) \(sectionIndex) \(section.name)")
    }
    func controller(_ controller: FetchedResultsController, didChange object: ManagedObject, at indexPath: ResultIndexPath?,
                    for type: ResultsChangeType, newIndexPath: ResultIndexPath?) {
        let name = object["lastName"].modelPlainText
        switch type {
        case .insert: lines.append("insert \(name) \(newIndexPath!)")
        case .delete: lines.append("delete \(name) \(indexPath!)")
        case .move: lines.append("move \(name) \(indexPath!) -> \(newIndexPath!)")
        case .update: lines.append("update \(name) \(indexPath!)")
        }
    }
}

@Suite struct FetchedResultsTests {
    /// Eng: Adams, Brown, Clark; Ops: Dunn, Evans.
    private func seeded() throws -> (ManagedObjectContext, [String: ManagedObject]) {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        var objects: [String: ManagedObject] = [:]
        for (department, names) in [("Eng", ["Adams", "Brown", "Clark"]), ("Ops", ["Dunn", "Evans"])] {
            let d = context.insertObject(forEntityName: "Department")
            d["name"] = .string(department)
            objects[department] = d
            for name in names {
                let p = context.insertObject(forEntityName: "Person")
                p["lastName"] = .string(name)
                p.setObject(d, forKey: "department")
                objects[name] = p
            }
        }
        try context.save()
        return (context, objects)
    }

    private func controller(_ context: ManagedObjectContext) throws -> FetchedResultsController {
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("department.name,lastName")
        return FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "department.name")
    }

    private func layout(_ results: FetchedResultsController) -> [String] {
        (results.sections ?? []).map { "\($0.name): " + $0.objects.map { $0["lastName"].modelPlainText }.joined(separator: " ") }
    }

    @Test func sectionsIndexPathsAndTitles() throws {
        let (context, objects) = try seeded()
        let results = try controller(context)
        #expect(results.sections == nil)
        try results.performFetch()
        #expect(layout(results) == ["Eng: Adams Brown Clark", "Ops: Dunn Evans"])
        #expect(results.sectionIndexTitles == ["E", "O"])
        #expect(results.fetchedObjects?.count == 5)
        #expect(results.object(at: ResultIndexPath(item: 1, section: 1)) === objects["Evans"])
        #expect(results.indexPath(for: objects["Brown"]!) == ResultIndexPath(item: 1, section: 0))
    }

    @Test func aScriptedSequenceReportsExactPositions() throws {
        let (context, objects) = try seeded()
        let results = try controller(context)
        let recorder = Recorder()
        results.delegate = recorder
        try results.performFetch()

        let baker = context.insertObject(forEntityName: "Person")
        baker["lastName"] = .string("Baker")
        baker.setObject(objects["Eng"]!, forKey: "department")
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "insert Baker [0, 1]", "did"])

        objects["Brown"]!["firstName"] = .string("Bo")
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "update Brown [0, 2]", "did"])

        objects["Adams"]!["lastName"] = .string("Zed")
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "move Zed [0, 0] -> [0, 3]", "did"])
        #expect(layout(results) == ["Eng: Baker Brown Clark Zed", "Ops: Dunn Evans"])

        let art = context.insertObject(forEntityName: "Department")
        art["name"] = .string("Art")
        objects["Evans"]!.setObject(art, forKey: "department")
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "section insert 0 Art", "move Evans [1, 1] -> [0, 0]", "did"])

        context.delete(objects["Dunn"]!)
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "section delete 2 Ops", "delete Dunn [2, 0]", "did"])
        #expect(layout(results) == ["Art: Evans", "Eng: Baker Brown Clark Zed"])

        // Two changes at once, processed together: positions are the old
        // ones for deletes, the new ones for inserts.
        context.delete(objects["Clark"]!)
        let cole = context.insertObject(forEntityName: "Person")
        cole["lastName"] = .string("Aaron")
        cole.setObject(objects["Eng"]!, forKey: "department")
        try context.save()
        #expect(recorder.take() == ["will", "delete Clark [1, 2]", "insert Aaron [1, 0]", "did"])
        context.processPendingChanges()
        #expect(recorder.take().isEmpty)

        // A save of another context, merged.
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        let brown = try other.existingObject(with: objects["Brown"]!.objectID)
        other.delete(brown)
        let fox = other.insertObject(forEntityName: "Person")
        fox["lastName"] = .string("Fox")
        fox.setObject(try other.existingObject(with: objects["Eng"]!.objectID), forKey: "department")
        other.addDidSaveObserver { note in context.mergeChanges(fromContextDidSave: note) }
        try other.save()
        #expect(recorder.take() == ["will", "delete Brown [1, 2]", "insert Fox [1, 2]", "did"])
        #expect(layout(results) == ["Art: Evans", "Eng: Aaron Baker Fox Zed"])

        // A batch update, merged.
        let batch = try context.execute(BatchUpdateRequest(
            entityName: "Person", predicate: try Predicate(format: "lastName == 'Baker'"),
            propertiesToUpdate: ["lastName": .value(.string("Yu"))]))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: batch.changes, into: [context])
        #expect(recorder.take() == ["will", "move Yu [1, 1] -> [1, 2]", "did"])
        #expect(layout(results) == ["Art: Evans", "Eng: Aaron Fox Yu Zed"])

        // Rollback of an unsaved change.
        objects["Adams"]!["lastName"] = .string("Ace")
        context.processPendingChanges()
        #expect(recorder.take() == ["will", "move Ace [1, 3] -> [1, 1]", "did"])
        context.rollback()
        #expect(recorder.take() == ["will", "move Zed [1, 1] -> [1, 3]", "did"])
    }

    /// A save elsewhere that makes an object this context never read
    /// match the results: merged, the controller shows it (Core Data's
    /// merge refreshes only registered objects and would leave it out).
    @Test func aMergedUpdateBringsInAnObjectNeverRead() throws {
        let (context, objects) = try seeded()
        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName BEGINSWITH 'Z'"))
        request.sortDescriptors = try SortSpec.parse("lastName")
        let results = FetchedResultsController(fetchRequest: request, context: reader)
        let recorder = Recorder()
        results.delegate = recorder
        try results.performFetch()
        #expect(results.fetchedObjects?.isEmpty == true)
        #expect(reader.registeredObjects.isEmpty)
        context.addDidSaveObserver { note in reader.mergeChanges(fromContextDidSave: note) }
        objects["Dunn"]!["lastName"] = .string("Zane")
        objects["Evans"]!["firstName"] = .string("Eve")
        try context.save()
        #expect(recorder.take() == ["will", "insert Zane [0, 0]", "did"])
        #expect(results.fetchedObjects?.map { $0["lastName"] } == [.string("Zane")])
    }

    @Test func snapshotsArriveAsAnAsyncSequence() async throws {
        let (context, objects) = try seeded()
        let results = try controller(context)
        try results.performFetch()
        var iterator = results.snapshots.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.sections.map(\.name) == ["Eng", "Ops"])
        context.delete(objects["Dunn"]!)
        context.delete(objects["Evans"]!)
        context.processPendingChanges()
        let second = await iterator.next()
        #expect(second?.sections.map(\.name) == ["Eng"])
        #expect(second?.objectIDs == ["Adams", "Brown", "Clark"].map { objects[$0]!.objectID })
    }

    @Test func anObjectObserverHearsChangesThenTheDelete() throws {
        let (context, objects) = try seeded()
        var changes = 0, deletes = 0
        let observer = ObjectObserver(objects["Adams"]!, onChange: { _ in changes += 1 }, onDelete: { _ in deletes += 1 })
        objects["Adams"]!["age"] = .int(40)
        objects["Adams"]!["age"] = .int(41)
        objects["Brown"]!["age"] = .int(40)
        context.processPendingChanges()
        #expect(changes == 1 && deletes == 0)
        context.delete(objects["Adams"]!)
        try context.save()
        #expect(changes == 1 && deletes == 1)
        context.processPendingChanges()
        #expect(deletes == 1)
        _ = observer
    }
}

@Suite struct QueueChangeTests {
    @Test func aPrivateQueueContextProcessesChangesWhenItsWorkEnds() async throws {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: try TestModels.coordinator(model))
        let seen = Counter()
        context.addObjectsDidChangeObserver { note in seen.add(note.insertedObjects.count) }
        try await context.perform {
            for name in ["a", "b"] {
                let department = context.insertObject(forEntityName: "Department")
                department["name"] = .string(name)
            }
            #expect(seen.value == 0)
        }
        // The notification was queued behind the work: it has run by now.
        try await context.perform { #expect(seen.value == 2) }
        #expect(seen.calls == 1)
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0, count = 0
    func add(_ n: Int) { lock.withLock { total += n; count += 1 } }
    var value: Int { lock.withLock { total } }
    var calls: Int { lock.withLock { count } }
}
