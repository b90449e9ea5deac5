/// Gathers physical lines into one complete entry, prompting
/// `   ...> ` while the text so far is incomplete.
///
/// ```swift
/// let assembler = EntryAssembler(isComplete: session.isComplete)
/// let entry = assembler.readEntry(prompt: "mrq> ") { prompt in
///     editor.readPhysicalLine(prompt: prompt)
/// }
/// ```
///
/// Blank lines at the main prompt are skipped. An interrupt throws away
/// the lines gathered so far and starts again at the main prompt. End of
/// input in the middle of an entry hands back the partial text, so the
/// session can report it as incomplete, as sqlite3 does.
public struct EntryAssembler {
    public static let continuationPrompt = "   ...> "

    public var isComplete: (String) -> Bool

    public init(isComplete: @escaping (String) -> Bool) {
        self.isComplete = isComplete
    }

    /// Reads lines through `readLine`, which receives the prompt to show,
    /// until they make a complete entry; `nil` at the end of input.
    public func readEntry(prompt: String, readLine: (String) -> LineEvent) -> String? {
        var lines: [String] = []
        while true {
            switch readLine(lines.isEmpty ? prompt : Self.continuationPrompt) {
            case .endOfInput:
                return lines.isEmpty ? nil : lines.joined(separator: "\n")
            case .interrupted:
                lines.removeAll()
            case .line(let line):
                if lines.isEmpty && line.allSatisfy(\.isWhitespace) { continue }
                lines.append(line)
                let text = lines.joined(separator: "\n")
                if isComplete(text) { return text }
            }
        }
    }
}
