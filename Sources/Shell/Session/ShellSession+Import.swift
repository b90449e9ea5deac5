import ActiveRecord
import Foundation
import ObjectStore
import Predicates

extension ShellSession {
    /// `import Entity from "file.json"`: the file's array, element by
    /// element (never one tree in memory), through the `Importer`, with
    /// progress and Ctrl-C; undone in one step.
    func runImportJSON(_ name: Name, path: String, range: SourceRange, output: OutputSink) throws {
        let entity = try self.entity(name)
        let reader: JSONArrayReader
        do {
            reader = JSONArrayReader(bytes: try ShellFiles.readData(self.path(path), shownAs: path))
        } catch {
            throw LocatedError(error.message, range)
        }
        let count: Int
        do {
            count = try importing(remaining: reader.remainingCount, output: output) { progress in
                try Importer(context: context).importArray(from: reader, into: entity, afterBatch: progress)
            }
        } catch let error as JSONSyntaxError {
            throw LocatedError("\(path):\(error.line):\(error.column): \(error.message)", range)
        } catch let error as ImportError {
            throw LocatedError("\(path): \(error.path): \(error.message)", range)
        }
        output.status("imported \(Self.count(count, entity.name))")
    }

    /// `save`: every pending change to the store in one transaction, with
    /// progress as the store writes; Ctrl-C stops it, and a stopped,
    /// failed or refused save leaves the context's changes as they were.
    /// The summary counts what was written, never a change a merge
    /// dropped.
    func runSave(output: OutputSink) throws {
        let changes = context.changeCount
        guard changes > 0 else {
            output.status("nothing to save")
            return
        }
        let meter = WorkMeter(action: "saved", total: changes, output: output, checkInterrupt: checkInterrupt)
        defer { meter.finish() }
        let written = try saveCountingWrites { written, total in
            meter.total = total
            try meter.advance(by: written - meter.done)
        }
        // Undo works on the changes not saved yet: undoing across a
        // save would bring back objects the store no longer has.
        undoManager.removeAllActions()
        output.status(ShellDiagnostics.saved(written, of: changes))
    }
}

extension ShellSession {
    /// `.import FILE Entity`: a CSV file (RFC 4180, its header naming
    /// attributes) as new objects, or a `.json` file as `import` reads it;
    /// one undo step, undone whole when it fails or Ctrl-C stops it.
    func runDotImport(_ arguments: [String], output: OutputSink) throws {
        guard arguments.count == 2 else { throw LocatedError("usage: .import FILE Entity (CSV with a header row, or .json)", .unknown) }
        let (file, entityName) = (arguments[0], Name(text: arguments[1], range: .unknown))
        StatementInterrupt.reset()
        undoManager.beginUndoGrouping()
        do {
            if file.lowercased().hasSuffix(".json") {
                try runImportJSON(entityName, path: file, range: .unknown, output: output)
            } else {
                try importCSV(file, into: try entity(entityName), output: output)
            }
            undoManager.endUndoGrouping()
        } catch {
            undoManager.endUndoGroupingAndRevert()
            if let error = error as? StoreError, error.kind == .interrupted { throw LocatedError("interrupted", .unknown) }
            throw error
        }
    }

    private func importCSV(_ file: String, into entity: EntityDescription, output: OutputSink) throws {
        let reader = CSVReader(bytes: try ShellFiles.readData(path(file), shownAs: file))
        let count: Int
        do {
            count = try importing(remaining: reader.remainingCount, output: output) { progress in
                try CSVImporter(context: context).importRecords(from: reader, into: entity, afterBatch: progress)
            }
        } catch let error as CSVImportError {
            throw LocatedError("\(file):\(error.line): " + (error.column.map { "column \($0): " } ?? "") + error.message, .unknown)
        }
        output.status("imported \(Self.count(count, entity.name))")
    }

    /// Runs an import as one undo step, with a progress bar whose total is
    /// what is done plus what `remaining` counts (asked only once the bar
    /// shows); `body` reports rows done through the closure it is given,
    /// which throws after Ctrl-C.
    private func importing(remaining: @escaping () -> Int, output: OutputSink,
                           _ body: (_ progress: (Int) throws -> Void) throws -> Int) throws -> Int {
        let meter = WorkMeter(action: "imported", output: output, checkInterrupt: checkInterrupt)
        defer { meter.finish() }
        meter.countTotal = { [unowned meter] in meter.done + remaining() }
        return try context.undoingAsOneAction {
            try body { done in try meter.advance(by: done - meter.done) }
        }
    }
}
