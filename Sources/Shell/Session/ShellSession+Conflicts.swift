import Foundation
import ObjectStore

// What a save does when another writer (a shell, a server, psql) changed
// the same rows since this session read them: `.merge-policy` chooses, and
// a refused save says what collided and how to go on.

extension ShellSession {
    /// The policies `.merge-policy` takes, by the names Core Data and mrq
    /// give them.
    static let mergePolicies: [(name: String, policy: MergePolicy)] = [
        ("mergeOrRefuse", .mergeOrRefuse),
        ("error", .error),
        ("mergeByPropertyObjectTrump", .mergeByPropertyObjectTrump),
        ("mergeByPropertyStoreTrump", .mergeByPropertyStoreTrump),
        ("overwrite", .overwrite),
        ("rollback", .rollback),
    ]

    /// `.merge-policy [NAME]`: shows or sets how saves meet other writers'
    /// changes; kept for stores opened later in the session.
    func runMergePolicy(_ arguments: [String], output: OutputSink) throws {
        guard let wanted = arguments.first else {
            let name = Self.mergePolicies.first { $0.policy == context.mergePolicy }?.name ?? "\(context.mergePolicy)"
            output.status("merge-policy: \(name)")
            return
        }
        guard arguments.count == 1,
              let chosen = Self.mergePolicies.first(where: { $0.name.lowercased() == wanted.lowercased() }) else {
            throw LocatedError(ShellDiagnostics.unknownMergePolicy(wanted, names: Self.mergePolicies.map(\.name)), .unknown)
        }
        context.mergePolicy = chosen.policy
        output.status("merge-policy: \(chosen.name)")
    }

    /// Saves the context; returns how many objects the save wrote
    /// (inserted, updated and deleted), which a merge can make fewer than
    /// the changes it started with. A conflict refused becomes a message
    /// saying how to go on.
    func saveCountingWrites(progress: @escaping (_ written: Int, _ total: Int) throws -> Void) throws -> Int {
        // Counted by the context, not by a save observer: an observer
        // would have the save build a snapshot of every object for it.
        do {
            try context.save(progress: progress)
        } catch let error as MergeConflictError {
            let kind: ShellDiagnostics.SaveConflict = error.conflicts.allSatisfy(\.isDeletedInStore) ? .deletedRow
                : error.conflicts.allSatisfy(\.isDeletedInContext) ? .deletingChanged : .changedValue
            throw LocatedError(ShellDiagnostics.saveRefused("\(error)", kind), .unknown)
        } catch let error as ConstraintConflictError {
            // A new object on a stored row's key can merge into it; two stored
            // rows on one key cannot, under any policy.
            let stored = error.conflicts.contains { $0.existingObjectID != nil && $0.objectIDs.allSatisfy(\.isTemporaryID) }
            throw LocatedError(ShellDiagnostics.saveRefused("\(error)", stored ? .storedKey : .sameSave), .unknown)
        }
        return context.lastSaveObjectCount
    }

    /// Rolls back the pending changes and reads the rows they touched
    /// again, so that after a refused save, redoing the change starts
    /// from the other writer's values. (Only those: every object read
    /// made a fault would cost a query each when next shown.)
    func rollbackAndRefresh() {
        let touched = context.updatedObjects + context.deletedObjects
        context.rollback()
        for object in touched where object.managedObjectContext === context {
            context.refresh(object, mergeChanges: false)
        }
    }
}
