import Foundation

/// JSON text whose top-level array is read one element at a time, so
/// that a large document never lives in memory as one tree: only its
/// text and the elements not yet let go of.
///
/// ```swift
/// let reader = JSONArrayReader(bytes: Array(data))
/// while let element = try reader.next() { … }
/// ```
///
/// A document that is not an array reads as one element. Syntax errors
/// come from `next()` when it reaches them, with the line and column.
/// (A class: a progress report can ask for `remainingCount()` while an
/// import reads, and the importer's read-ahead thread parses what comes
/// next: see `startReadingAhead`.)
public final class JSONArrayReader {
    private let bytes: [UInt8]
    /// Where the next element starts, and the parser's object shapes.
    private var cursor: Cursor
    /// Where the array's elements start.
    private let firstElement: Int
    /// The elements parsed ahead on another thread, while a read-ahead
    /// runs (`startReadingAhead`).
    private var ahead: ReadAhead?

    /// Where reading is: a value, so that a read-ahead's thread can take
    /// it and give it back.
    struct Cursor: Sendable {
        var position: Int
        var state: State
        /// The parser's object shapes, kept from element to element.
        var shapes: [JSONObjectShape] = []
        /// How many elements were read before `position`.
        var read = 0
    }

    enum State: Sendable {
        /// Inside the top-level array; `first` before its first element.
        case array(first: Bool)
        /// A document that is not an array, not read yet.
        case single
        case done
    }

    /// A reader of the JSON text `bytes` (UTF-8; a byte order mark is
    /// skipped). Nothing is parsed until `next()`.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        var position = JSONParser.start(of: bytes)
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "[") {
            cursor = Cursor(position: position + 1, state: .array(first: true))
            firstElement = position + 1
        } else {
            firstElement = 0
            cursor = Cursor(position: JSONParser.start(of: bytes), state: .single)
        }
    }

    /// Texts shorter than this many bytes are not read ahead: a thread
    /// costs more than it saves on them (the tests set it lower).
    var readAheadMinimum = 1 << 20
    /// Whether a read-ahead starts without a core to spare (the tests
    /// set it, to read ahead on any machine).
    var readsAheadWithoutIdleCore = false
    /// Whether a read-ahead thread is running.
    var isReadingAhead: Bool { ahead != nil }

    deinit {
        _ = ahead?.stop()
    }

    /// Whether the document is an array (read element by element).
    public var isArray: Bool {
        if case .single = cursor.state { return false }
        return true
    }

    /// The next element, or nil after the last.
    public func next() throws -> JSON? {
        stopReadingAhead()
        return try bytes.withUnsafeBufferPointer { try Self.next(in: $0, &cursor) }
    }

    /// The element at `cursor`, which moves past it; nil after the last.
    /// After a syntax error the cursor is where the error is.
    static func next(in buffer: UnsafeBufferPointer<UInt8>, _ cursor: inout Cursor) throws -> JSON? {
        var parser = JSONParser(bytes: buffer, position: cursor.position)
        swap(&parser.shapes, &cursor.shapes)
        defer {
            cursor.position = parser.position
            swap(&parser.shapes, &cursor.shapes)
        }
        switch cursor.state {
        case .done:
            return nil
        case .single:
            cursor.state = .done
            return try parser.parseDocumentRest()
        case .array(let first):
            parser.depth = 1
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw parser.error("unexpected end of input in array") }
            if buffer[parser.position] == UInt8(ascii: "]") {
                guard first else { throw parser.error("expected a value after ','") }
                parser.position += 1
                try parser.expectEnd()
                cursor.state = .done
                return nil
            }
            let element = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw parser.error("unexpected end of input in array") }
            switch buffer[parser.position] {
            case UInt8(ascii: ","):
                parser.position += 1
                cursor.state = .array(first: false)
            case UInt8(ascii: "]"):
                parser.position += 1
                try parser.expectEnd()
                cursor.state = .done
            default:
                throw parser.error("expected ',' or ']' in array")
            }
            cursor.read += 1
            return element
        }
    }

    /// How many elements `next()` has yet to return, by a quick scan of
    /// the text that builds nothing (for a progress bar's total). Text
    /// that is not valid JSON counts as far as the scan can tell.
    public func remainingCount() -> Int {
        guard let ahead else { return Self.count(in: bytes, from: cursor.position, cursor.state) }
        // The elements parsed ahead, and those past where the thread is.
        let (queued, reached) = ahead.progress()
        return queued + Self.count(in: bytes, from: reached.position, reached.state)
    }

    /// About how many elements `next()` has yet to return, judged by the
    /// bytes those read so far took, with no scan (room to make for them,
    /// not a count to show); nil before the first. At most one for every
    /// `estimateBytesPerElement` bytes left: a text whose first elements
    /// are tiny and whose rest is one huge value must not have room made
    /// for many times what the text itself takes.
    func estimatedRemainingCount() -> Int? {
        let (queued, reached) = ahead?.progress() ?? (0, cursor)
        guard case .array = reached.state else { return queued }
        let taken = reached.position - firstElement
        guard reached.read > 0, taken > 0 else { return nil }
        let left = bytes.count - reached.position
        let estimate = Double(left) * Double(reached.read) / Double(taken)
        return queued + min(Int(estimate), left / Self.estimateBytesPerElement)
    }

    /// The fewest bytes an element is taken to need by
    /// `estimatedRemainingCount` (a keyed object, `{"id":1},`, takes 9).
    static let estimateBytesPerElement = 32

    /// How many elements the text from `position` holds in `state`.
    private static func count(in bytes: [UInt8], from position: Int, _ state: State) -> Int {
        switch state {
        case .done: return 0
        case .single: return 1
        case .array:
            return bytes.withUnsafeBufferPointer { buffer in
                var position = position
                var depth = 0
                var count = 0
                var inValue = false
                while position < buffer.count {
                    let byte = buffer[position]
                    position += 1
                    switch byte {
                    case UInt8(ascii: "\""):
                        inValue = true
                        while position < buffer.count, buffer[position] != UInt8(ascii: "\"") {
                            position += buffer[position] == UInt8(ascii: "\\") ? 2 : 1
                        }
                        position += 1
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        inValue = true
                        depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        if depth == 0 { return count + (inValue ? 1 : 0) }
                        depth -= 1
                    case UInt8(ascii: ","):
                        if depth == 0 { count += 1; inValue = false }
                    case 0x20, 0x0A, 0x0D, 0x09:
                        break
                    default:
                        inValue = true
                    }
                }
                return count + (inValue ? 1 : 0)
            }
        }
    }
}

// MARK: - Reading ahead

extension JSONArrayReader {
    /// Starts parsing the array's elements on a thread of its own, `chunk`
    /// at a time, while the caller imports those before: the parse of the
    /// next chunks and the import of this one take a core each (mrq-bench
    /// m. shell import). At most two chunks wait parsed. Does nothing for
    /// a text shorter than `readAheadMinimum` bytes, a document that is
    /// not an array, or when no core is idle.
    func startReadingAhead(chunk: Int) {
        guard ahead == nil, case .array = cursor.state, chunk > 0,
              bytes.count - cursor.position >= readAheadMinimum,
              readsAheadWithoutIdleCore || Self.mayReadAhead() else { return }
        let ahead = ReadAhead(from: cursor)
        self.ahead = ahead
        ahead.start(bytes, chunk: chunk)
    }

    /// Whether a read-ahead may start: with `MRQ_JSON_READ_AHEAD=0` in
    /// the environment never (the parse then always takes turns with the
    /// import, as mrq-bench's instruction counts need: callgrind counts
    /// only the measured thread), with `MRQ_JSON_READ_AHEAD=1` always (to
    /// profile or time the read-ahead on a busy machine, where the load
    /// would turn it off), else when a core is likely free: this
    /// process may run on more than one, and the last minute's load
    /// leaves one of them idle. On a busy machine the thread only takes
    /// turns with the importer, and the rows it hands over cost the
    /// importer more to reach than their parse saved: 10-15% slower (200k
    /// rows, load 3-5 on 2 cores).
    private static func mayReadAhead() -> Bool {
        if let setting = getenv("MRQ_JSON_READ_AHEAD") {
            switch String(cString: setting) {
            case "0": return false
            case "1": return true
            default: break
            }
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores > 1 else { return false }
        var load = [0.0]
        guard getloadavg(&load, 1) == 1 else { return true }
        return load[0] < Double(cores) - 0.5
    }

    /// The next elements, at most `count` of them (while reading ahead,
    /// a chunk as `startReadingAhead` was given); empty after the last.
    /// A syntax error throws, and the elements before it in the same
    /// chunk are not returned.
    func nextElements(_ count: Int) throws -> [JSON] {
        var elements: [JSON] = []
        try nextElements(count, replacing: &elements)
        return elements
    }

    /// Puts the next elements in `elements` instead of those it held,
    /// which a read-ahead's thread lets go of (freeing a chunk's trees
    /// is work too).
    func nextElements(_ count: Int, replacing elements: inout [JSON]) throws {
        if let ahead { return try ahead.take(replacing: &elements) }
        elements.removeAll(keepingCapacity: true)
        try bytes.withUnsafeBufferPointer { buffer in
            while elements.count < count, let element = try Self.next(in: buffer, &cursor) { elements.append(element) }
        }
    }

    /// Stops a read-ahead and waits for its thread: the reader then
    /// stands before the first element parsed ahead but not handed out.
    func stopReadingAhead() {
        guard let ahead else { return }
        self.ahead = nil
        cursor = ahead.stop()
    }
}

/// The thread of a reader's read-ahead and the chunks it hands over.
///
/// The reader's bytes are shared read-only; the thread owns its own
/// cursor, and everything else here is read and written under
/// `condition`'s lock, which is what makes the class sendable.
private final class ReadAhead: @unchecked Sendable {
    typealias Cursor = JSONArrayReader.Cursor

    /// What the thread hands over, in order; `end` and `failure` last.
    private enum Item {
        case elements([JSON])
        case end
        case failure(any Error)
    }

    /// How many chunks may wait parsed: enough that the importer does
    /// not wait while the thread keeps up, few enough that memory holds
    /// three chunks' trees, never the document's.
    private static let depth = 2

    private let condition = NSCondition()
    /// Chunks parsed and not taken, each with where its text starts
    /// (without the shapes, which only save work).
    private var waiting: [(start: Cursor, item: Item)] = []
    /// Elements in `waiting`.
    private var queued = 0
    /// Chunks the importer is done with, for the thread to let go of.
    private var spent: [[JSON]] = []
    /// Where the thread is: after the chunks it handed over, or, once it
    /// ended, where the reader reads on.
    private var reached: Cursor
    private var stopping = false
    private var running = false

    init(from cursor: Cursor) {
        reached = cursor
    }

    func start(_ bytes: [UInt8], chunk: Int) {
        running = true
        let cursor = reached
        let thread = Thread { [self] in run(bytes, chunk: chunk, from: cursor) }
        thread.name = "mrq JSON read-ahead"
        // As deep as the main thread's: the parser recurses per level of
        // nesting (up to 512).
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func run(_ bytes: [UInt8], chunk: Int, from start: Cursor) {
        var cursor = start
        bytes.withUnsafeBufferPointer { buffer in
            while true {
                let before = Cursor(position: cursor.position, state: cursor.state, read: cursor.read)
                var elements: [JSON] = []
                elements.reserveCapacity(chunk)
                let item: Item
                do {
                    while elements.count < chunk, let element = try JSONArrayReader.next(in: buffer, &cursor) {
                        elements.append(element)
                    }
                    item = elements.isEmpty ? .end : .elements(elements)
                } catch {
                    item = .failure(error)
                }
                condition.lock()
                while waiting.count >= Self.depth, !stopping, spent.isEmpty { condition.wait() }
                if !spent.isEmpty {
                    // Let go of outside the lock, then wait again.
                    var used: [[JSON]] = []
                    swap(&used, &spent)
                    condition.unlock()
                    used = []
                    condition.lock()
                    while waiting.count >= Self.depth, !stopping { condition.wait() }
                }
                if stopping {
                    // Not handed over: the reader reads it again.
                    cursor = before
                    condition.unlock()
                    break
                }
                waiting.append((before, item))
                if case .elements = item { queued += elements.count }
                reached = Cursor(position: cursor.position, state: cursor.state, read: cursor.read)
                condition.broadcast()
                condition.unlock()
                guard case .elements = item else { break }
            }
        }
        condition.lock()
        reached = cursor
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Puts the next chunk in `elements`, waiting for it, and hands
    /// what `elements` held to the thread to let go of; empty after the
    /// last; throws the syntax error the thread met, as often as asked.
    func take(replacing elements: inout [JSON]) throws {
        var used: [JSON] = []
        swap(&used, &elements)
        condition.lock()
        // Moved, not copied: a copy let go of here after the thread let
        // go of its own would free the chunk on this thread after all.
        if !used.isEmpty { spent.append(consume used) }
        while waiting.isEmpty { condition.wait() }
        let item = waiting[0].item
        if case .elements(let chunk) = item {
            waiting.removeFirst()
            queued -= chunk.count
            condition.broadcast()
        }
        condition.unlock()
        switch item {
        case .elements(let chunk): elements = chunk
        case .end: break
        case .failure(let error): throw error
        }
    }

    /// Elements parsed and not taken, and where the thread is.
    func progress() -> (queued: Int, reached: Cursor) {
        condition.lock()
        defer { condition.unlock() }
        return (queued, Cursor(position: reached.position, state: reached.state, read: reached.read))
    }

    /// Stops the thread and waits for it; where the reader reads on: the
    /// first chunk not taken, or after the last one parsed.
    func stop() -> Cursor {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        return waiting.first?.start ?? reached
    }
}
