import Foundation

/// XML bytes made safe for libxml2 before `XMLParser` sees them: UTF-8
/// without a byte-order mark, with a declaration that says so.
///
/// ```swift
/// let bytes = try XMLInput.normalized(data)   // UTF-16 with a BOM → UTF-8
/// ```
///
/// libxml2 (2.9, under FoundationXML's `XMLParser`) crashes on some
/// malformed UTF-16: six bytes (`FE FF D9 5B 22 00`, a byte-order mark, a
/// lone surrogate, `"`) end the process. Models and stores are UTF-8 text
/// (Xcode and mrq write nothing else), so every byte is checked and
/// converted here, in Swift: UTF-16 and UTF-32 with a byte-order mark
/// become UTF-8, a Latin-1 document that says so too, and anything that is
/// not text (a malformed sequence, a NUL) is refused with the offset of the
/// first bad byte.
enum XMLInput {
    /// Why the bytes are not XML text, with the offset of the first bad
    /// byte.
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// The bytes as UTF-8 XML that libxml2 reads safely.
    ///
    /// With `allowingCoreDataDoctype`, the one document type declaration
    /// Apple's XML store files begin with (`<!DOCTYPE database SYSTEM
    /// "file:///System/Library/DTDs/CoreData.dtd">`, no internal subset) is
    /// accepted and blanked out, so libxml2 never sees a DTD to load or an
    /// entity to expand.
    static func normalized(_ data: Data, allowingCoreDataDoctype: Bool = false) throws(Malformed) -> Data {
        let bytes = [UInt8](data)
        let text: String
        switch bytes.prefix(4) {
        case let p where p.starts(with: [0x00, 0x00, 0xFE, 0xFF]):
            text = try decodeUTF32(bytes.dropFirst(4), bigEndian: true)
        case let p where p.starts(with: [0xFF, 0xFE, 0x00, 0x00]):
            text = try decodeUTF32(bytes.dropFirst(4), bigEndian: false)
        case let p where p.starts(with: [0xFE, 0xFF]):
            text = try decodeUTF16(bytes.dropFirst(2), bigEndian: true)
        case let p where p.starts(with: [0xFF, 0xFE]):
            text = try decodeUTF16(bytes.dropFirst(2), bigEndian: false)
        case let p where p.starts(with: [0xEF, 0xBB, 0xBF]):
            text = try decodeUTF8(bytes.dropFirst(3))
        case let p where p.count >= 2 && (p.first == 0 || p.dropFirst().first == 0):
            // `<` as UTF-16 or UTF-32 without a byte-order mark.
            throw Malformed(offset: 0, reason: "UTF-16 or UTF-32 text without a byte-order mark (save it as UTF-8)")
        default:
            do {
                text = try decodeUTF8(bytes[...])
            } catch {
                // A document that declares Latin-1 is Latin-1 byte for byte.
                let declared = declaredEncoding(bytes)?.lowercased()
                guard declared?.hasPrefix("iso-8859-1") == true || declared == "latin1" else { throw error }
                text = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
            }
        }
        if let nul = text.utf8.firstIndex(of: 0) {
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: nul)
            throw Malformed(offset: offset, reason: "a NUL character, which XML does not allow,")
        }
        var utf8 = Array(declaringUTF8(text).utf8)
        try checkMarkup(&utf8, allowingCoreDataDoctype: allowingCoreDataDoctype)
        return Data(utf8)
    }

    /// Refuses the markup models and stores never hold and FoundationXML
    /// cannot take: a processing instruction other than the `<?xml …?>`
    /// declaration (`<?xm?>`, with no data, made it read a null C string:
    /// found by fuzzing), and a document type declaration (entities that
    /// expand without end, or reach for other files). Comments and CDATA
    /// sections are skipped, so text inside them is not mistaken for
    /// markup. With `allowingCoreDataDoctype`, Core Data's own declaration
    /// before the root element is replaced by spaces (its line breaks
    /// kept, so lines still count the same).
    static func checkMarkup(_ bytes: inout [UInt8], allowingCoreDataDoctype: Bool = false) throws(Malformed) {
        /// Where `end` finishes, searching from `start`; the end of the
        /// bytes when it never does.
        func after(_ end: [UInt8], from start: Int) -> Int {
            bytes[start...].firstRange(of: end)?.upperBound ?? bytes.count
        }
        var i = 0
        var beforeRoot = true
        while let open = bytes[i...].firstIndex(of: UInt8(ascii: "<")) {
            let rest = bytes[open...]
            if rest.starts(with: Markup.commentOpen) {
                i = after(Markup.commentClose, from: open + Markup.commentOpen.count)
            } else if rest.starts(with: Markup.cdataOpen) {
                i = after(Markup.cdataClose, from: open + Markup.cdataOpen.count)
            } else if rest.starts(with: Markup.instructionOpen) {
                let declaration = open == 0 && rest.starts(with: Markup.declarationOpen) && bytes.count > 5
                    && Markup.declarationFollowers.contains(bytes[5])
                guard declaration else {
                    throw Malformed(offset: open, reason: "a processing instruction (models and XML stores hold none)")
                }
                i = after(Markup.instructionClose, from: open + 2)
            } else if allowingCoreDataDoctype && beforeRoot && rest.starts(with: Markup.doctype) {
                guard let end = coreDataDoctypeEnd(bytes, from: open) else {
                    throw Malformed(offset: open, reason: """
                        a document type declaration other than Core Data's \
                        (<!DOCTYPE database SYSTEM "…/CoreData.dtd">, with no internal subset)
                        """)
                }
                for j in open..<end where bytes[j] != UInt8(ascii: "\n") { bytes[j] = UInt8(ascii: " ") }
                beforeRoot = false
                i = end
            } else if rest.starts(with: Markup.doctype) || rest.starts(with: Markup.entity) {
                throw Malformed(offset: open, reason: "a document type declaration (models and XML stores hold none)")
            } else {
                beforeRoot = false
                i = open + 1
            }
        }
    }

    /// Where `<!DOCTYPE database SYSTEM "….CoreData.dtd">` starting at
    /// `open` ends (just past its `>`); nil when the declaration is any
    /// other, or has an internal subset.
    static func coreDataDoctypeEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        var i = open + Markup.doctype.count
        func skipSpace() -> Bool {
            let start = i
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
            return i > start
        }
        func word(_ text: String) -> Bool {
            guard bytes[i...].starts(with: text.utf8) else { return false }
            i += text.utf8.count
            return true
        }
        guard skipSpace(), word("database"), skipSpace(), word("SYSTEM"), skipSpace(), i < bytes.count else { return nil }
        let quote = bytes[i]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
              let close = bytes[(i + 1)...].firstIndex(of: quote) else { return nil }
        let literal = String(decoding: bytes[(i + 1)..<close], as: UTF8.self)
        guard literal.hasSuffix("/CoreData.dtd") else { return nil }
        i = close + 1
        _ = skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return nil }
        return i + 1
    }

    /// The byte strings `checkMarkup` looks for.
    private enum Markup {
        static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
        static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
        static let instructionOpen = Array("<?".utf8), instructionClose = Array("?>".utf8)
        static let declarationOpen = Array("<?xml".utf8)
        /// What follows `<?xml` in a declaration: white space (then
        /// `version`, which XML requires). `<?xml?>` is no declaration:
        /// libxml2's chunked parser reports it as an instruction with no
        /// data, which FoundationXML reads as a null C string (found by
        /// fuzzing the XML store).
        static let declarationFollowers: [UInt8] = Array(" \t\n\r".utf8)
        static let doctype = Array("<!DOCTYPE".utf8), entity = Array("<!ENTITY".utf8)
    }

    /// The `encoding` of an `<?xml …?>` declaration at the start.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)), let end = bytes.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let declaration = String(decoding: bytes[..<end], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// `text` with its declaration's encoding (if any) saying UTF-8, which
    /// it now is.
    static func declaringUTF8(_ text: String) -> String {
        guard text.hasPrefix("<?xml"), let end = text.firstIndex(of: ">") else { return text }
        let declaration = text[..<end]
        guard let name = declaration.range(of: "encoding") else { return text }
        let afterName = declaration[name.upperBound...]
        guard let open = afterName.firstIndex(where: { $0 == "\"" || $0 == "'" }),
              let close = afterName[afterName.index(after: open)...].firstIndex(of: afterName[open]) else { return text }
        return String(text[..<afterName.index(after: open)]) + "UTF-8" + String(text[close...])
    }

    /// Nearly every file is valid UTF-8: the standard library checks it
    /// in one pass, and the scalar-by-scalar decoder runs only to say where
    /// it is not.
    static func decodeUTF8(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var iterator = bytes.makeIterator()
        return try decode(&iterator, as: UTF8.self, from: bytes.startIndex, bytesPerUnit: 1, reason: "not UTF-8 text")
    }

    /// Decodes strictly: the first malformed sequence is an error at its
    /// byte offset (`from` plus the bytes decoded before it).
    static func decode<Codec: UnicodeCodec, Units: IteratorProtocol>(
        _ iterator: inout Units, as codec: Codec.Type, from start: Int, bytesPerUnit: Int, reason: String
    ) throws(Malformed) -> String where Units.Element == Codec.CodeUnit {
        var decoder = Codec()
        var position = start
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                scalars.append(scalar)
                position += bytesPerUnit * (bytesPerUnit == 1 ? scalar.utf8.count : scalar.utf16.count)
            case .emptyInput:
                return String(scalars)
            case .error:
                throw Malformed(offset: position, reason: reason)
            }
        }
    }

    static func decodeUTF16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) throws(Malformed) -> String {
        guard bytes.count % 2 == 0 else {
            throw Malformed(offset: bytes.endIndex - 1, reason: "UTF-16 text cut in the middle of a character")
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let (a, b) = (UInt16(bytes[i]), UInt16(bytes[i + 1]))
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        var iterator = units.makeIterator()
        return try decode(&iterator, as: UTF16.self, from: bytes.startIndex, bytesPerUnit: 2,
                          reason: "not UTF-16 text (a lone surrogate)")
    }

    static func decodeUTF32(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) throws(Malformed) -> String {
        guard bytes.count % 4 == 0 else {
            throw Malformed(offset: bytes.endIndex - 1, reason: "UTF-32 text cut in the middle of a character")
        }
        var scalars = String.UnicodeScalarView()
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let quad = bytes[i..<i + 4].map(UInt32.init)
            let value = bigEndian ? quad[0] << 24 | quad[1] << 16 | quad[2] << 8 | quad[3]
                                  : quad[3] << 24 | quad[2] << 16 | quad[1] << 8 | quad[0]
            guard let scalar = Unicode.Scalar(value) else {
                throw Malformed(offset: i, reason: "not UTF-32 text")
            }
            scalars.append(scalar)
            i += 4
        }
        return String(scalars)
    }
}
