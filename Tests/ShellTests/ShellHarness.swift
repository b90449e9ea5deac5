import Foundation
@testable import Shell

/// A session over the People sample model, in memory or in a file, with a
/// temporary folder as its base, and what each run printed.
final class ShellHarness {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let samples = root.appendingPathComponent("Samples")
    static let peopleModel = samples.appendingPathComponent("People.xcdatamodeld").path

    /// Standard output and standard error, kept apart and together.
    final class Output: ShellOutput {
        var text = ""
        var errors = ""
        var both = ""
        func write(_ s: String) { text += s; both += s }
        func writeError(_ s: String) { errors += s; both += s }
    }

    /// What one `run` did.
    struct Result {
        var ok: Bool
        var text: String
        var errors: String
    }

    let session: ShellSession
    let directory: URL
    /// Called with every text before it runs.
    var trace: ((String) -> Void)?

    /// A session on `store` (`:memory:` or a file name inside the
    /// temporary folder) with the People model unless `model` is nil.
    init(store: String = ":memory:", model: String? = ShellHarness.peopleModel) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let storePath = store == ":memory:" || store.hasPrefix("postgres") ? store : directory.appendingPathComponent(store).path
        session = try ShellSession(modelPath: model, storePath: storePath)
        session.baseDirectory = URL(fileURLWithPath: directory.path, isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `text` as typed at the prompt (or as the script `fileName`).
    @discardableResult
    func run(_ text: String, fileName: String? = nil) -> Result {
        trace?(text)
        let output = Output()
        let ok = session.run(text, fileName: fileName, output: output)
        return Result(ok: ok, text: output.text, errors: output.errors)
    }

    /// The count `count Entity` prints, or nil when it fails.
    func count(_ entity: String) -> Int? {
        let result = run("count \(entity)")
        guard result.ok else { return nil }
        return result.text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.last
    }

    /// A path inside the temporary folder.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Writes `contents` to a file of the temporary folder.
    func write(_ name: String, _ contents: Data) throws {
        try contents.write(to: directory.appendingPathComponent(name))
    }

    /// Makes a named pipe in the temporary folder.
    func makeFIFO(_ name: String) -> Bool {
        mkfifo(path(name), 0o600) == 0
    }
}
