import Foundation

/// A JSON value, as the importer reads it.
///
/// ```swift
/// let json = try JSON(parsing: #"{"name": "Ada", "age": 36}"#)
/// json["name"]      // .string("Ada")
/// ```
public enum JSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string, escapes decoded.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object, its members in document order.
    case object(JSONObject)

    /// The member `key` of an object; nil when absent or when this is not an
    /// object.
    ///
    /// ```swift
    /// let json = try JSON(parsing: #"{"name": "Ada"}"#)
    /// json["name"]   // .string("Ada")
    /// ```
    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Follows a dotted key path through nested objects.
    public func value(atKeyPath keyPath: String) -> JSON? {
        var current: JSON = self
        for part in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard case .object(let members) = current, let next = members[String(part)] else { return nil }
            current = next
        }
        return current
    }

    /// Follows key path components through nested objects.
    public func value(atPath path: [String]) -> JSON? {
        var current: JSON = self
        for part in path {
            guard case .object(let members) = current, let next = members[part] else { return nil }
            current = next
        }
        return current
    }

    /// True for `null`.
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Parses JSON text; errors give the line and column.
    public init(parsing text: String) throws {
        self = try JSONParser.parseDocument(Array(text.utf8))
    }

    /// Parses JSON from UTF-8 bytes, such as a file's or an HTTP body's.
    /// Throws a ``JSONSyntaxError`` with the line and column of the mistake.
    ///
    /// ```swift
    /// let url = URL(fileURLWithPath: "people.json")
    /// let json = try JSON(data: Data(contentsOf: url))
    /// ```
    public init(data: Data) throws {
        self = try JSONParser.parseDocument(Array(data))
    }

    /// Wraps a value from `JSONSerialization` or Swift literals.
    public init(any value: Any?) {
        switch value {
        case nil, is NSNull: self = .null
        case let json as JSON: self = json
        case let b as Bool: self = .bool(b)
        case let i as Int: self = .int(Int64(i))
        case let i as Int64: self = .int(i)
        case let d as Double: self = .double(d)
        case let s as String: self = .string(s)
        case let a as [Any?]: self = .array(a.map(JSON.init(any:)))
        case let o as [String: Any?]: self = .object(JSONObject(o.mapValues(JSON.init(any:))))
        case let some?: self = .string(String(describing: some))
        }
    }
}

/// A JSON syntax error with its position.
public struct JSONSyntaxError: Error, CustomStringConvertible {
    /// What is wrong: `expected ',' or '}' in object`.
    public let message: String
    /// The line of the mistake, from 1.
    public let line: Int
    /// The column of the mistake, from 1.
    public let column: Int
    public var description: String { "invalid JSON at \(line):\(column): \(message)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Works on a buffer the caller holds for the parse, which costs no
/// bounds checks beyond the parser's own, and reads numbers straight from
/// the bytes.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    var depth = 0
    /// Per depth, the keys of the last object there: the next one (a row
    /// of the same shape) reserves as many members at once and takes its
    /// keys from here when its text spells the same ones.
    var shapes: [JSONObjectShape] = []
    /// Whether objects take their keys from the last object at their depth.
    var remembersShapes = true

    init(bytes: UnsafeBufferPointer<UInt8>, position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// Where the text starts, after a byte order mark.
    static func start(of bytes: [UInt8]) -> Int {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// The whole document as one value.
    /// `remembersShapes` false reads every key afresh (the reference the
    /// shape tests compare with).
    static func parseDocument(_ bytes: [UInt8], remembersShapes: Bool = true) throws -> JSON {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, position: start(of: bytes))
            parser.remembersShapes = remembersShapes
            return try parser.parseDocumentRest()
        }
    }

    /// A value, then nothing but whitespace.
    mutating func parseDocumentRest() throws -> JSON {
        let value = try parseValue()
        try expectEnd()
        return value
    }

    mutating func expectEnd() throws {
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the value") }
    }

    func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSON {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
        }
    }

    mutating func expectWord(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0 else {
            throw error("expected '\(word)'")
        }
        position += count
    }

    /// Objects this shallow remember their keys for the next object at
    /// the same depth.
    private static let shapeDepth = 8

    mutating func parseObject() throws -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth < 512 else { throw error("nested too deeply") }
        position += 1
        var members = JSONObjectBuilder()
        let remembers = remembersShapes && depth < Self.shapeDepth
        if remembers {
            while shapes.count <= depth { shapes.append(JSONObjectShape()) }
            members.reserve(shapes[depth].memberCount)
        }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            if remembers, shapes[depth].memberCount != 0 { shapes[depth].memberCount = 0 }
            return .object(members.object)
        }
        // While every key so far is the remembered shape's key at the same
        // place, the next one is checked against the shape's next key by
        // its bytes, and is new to the object (the shape's keys differ).
        var onShape = remembers
        // The keys of an object that leaves the shape, while they are all
        // plain and distinct: the shape for the next object.
        var newShape: JSONObjectShape?
        var index = 0
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key string") }
            if onShape, let (key, end) = shapes[depth].key(index, in: bytes, at: position + 1) {
                position = end
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
                position += 1
                members.append(key, try parseValue())
            } else {
                if onShape {
                    onShape = false
                    newShape = shapes[depth].prefix(index)
                }
                let keyStart = position + 1
                let (key, plain) = try parseKey()
                let keyEnd = position - 1
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
                position += 1
                if members.add(key, try parseValue()), plain {
                    newShape?.append(key, UnsafeBufferPointer(rebasing: bytes[keyStart..<keyEnd]))
                } else {
                    newShape = nil
                }
            }
            index += 1
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                if remembers {
                    if let newShape {
                        shapes[depth] = newShape
                    } else if !onShape {
                        shapes[depth] = JSONObjectShape()
                    }
                    if shapes[depth].memberCount != members.count { shapes[depth].memberCount = members.count }
                }
                return .object(members.object)
            }
            throw error("expected ',' or '}' in object")
        }
    }

    /// A key string: its text, and whether the document wrote it plainly
    /// (no escape), so that its bytes are its text.
    mutating func parseKey() throws -> (String, plain: Bool) {
        let start = position + 1
        let key = try parseString()
        // A plain string's closing quote is the first after its start.
        let plain = !UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]).contains(UInt8(ascii: "\\"))
        return (key, plain)
    }

    mutating func parseArray() throws -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth < 512 else { throw error("nested too deeply") }
        position += 1
        var elements: [JSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw error("expected ',' or ']' in array")
        }
    }

    mutating func parseString() throws -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let s = Self.string(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                position += 1
                return s
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
        }
        var scalars = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in string") }
            if byte != UInt8(ascii: "\\") { scalars.append(byte); position += 1; continue }
            position += 1
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append(0x22)
            case UInt8(ascii: "\\"): scalars.append(0x5C)
            case UInt8(ascii: "/"): scalars.append(0x2F)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
        }
        throw error("unterminated string")
    }

    /// The text of UTF-8 bytes, invalid sequences replaced as
    /// `String(decoding:as:)` replaces them. Built in place: a string of
    /// up to 15 ASCII bytes (most values of a row) then skips the
    /// validation and the copy `String(decoding:as:)` makes (mrq-bench
    /// m. shell import).
    @inline(__always)
    static func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
        guard let source = utf8.baseAddress, utf8.count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: utf8.count) { target in
            guard let target = target.baseAddress else { return 0 }
            target.initialize(from: source, count: utf8.count)
            return utf8.count
        }
    }

    mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    /// Exact powers of ten: a number of at most 15 significant digits
    /// times or over one of these is the correctly rounded double.
    private static let powersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { r, _ in r * 10 } }

    /// number → '-'? int frac? exp? — an integer when it fits Int64 and has
    /// no fraction or exponent, else a double.
    mutating func parseNumber() throws -> JSON {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        // The significant digits, as long as they fit.
        var mantissa: UInt64 = 0
        var digitCount = 0
        var overflow = false
        func digits(_ mantissa: inout UInt64, _ digitCount: inout Int, _ overflow: inout Bool) -> Int {
            let s = position
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if digitCount < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    if mantissa != 0 { digitCount += 1 }
                } else {
                    overflow = true
                }
                position += 1
            }
            return position - s
        }
        let integerDigits = digits(&mantissa, &digitCount, &overflow)
        guard integerDigits > 0 else { throw error("expected digits") }
        var isInteger = true
        var fractionDigits = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            fractionDigits = digits(&mantissa, &digitCount, &overflow)
            guard fractionDigits > 0 else { throw error("expected digits after '.'") }
        }
        var exponent = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            let s = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[position] - UInt8(ascii: "0")) }
                position += 1
            }
            guard position > s else { throw error("expected exponent digits") }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger, !overflow {
            if negative, mantissa <= UInt64(Int64.max) + 1 { return .int(Int64(truncatingIfNeeded: 0 &- mantissa)) }
            if !negative, mantissa <= UInt64(Int64.max) { return .int(Int64(mantissa)) }
        }
        // Clinger's fast path: both operands exact, so one operation
        // rounds correctly.
        let scale = exponent - fractionDigits
        if !overflow, mantissa < 1 << 53, abs(scale) <= 22 {
            let value = scale < 0 ? Double(mantissa) / Self.powersOfTen[-scale] : Double(mantissa) * Self.powersOfTen[scale]
            return .double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let d = Double(text) else { throw error("invalid number") }
        return .double(d)
    }
}

/// Literals, for JSON written in Swift: `["name": "Ada", "tags": [1, 2]]`.
extension JSON: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
