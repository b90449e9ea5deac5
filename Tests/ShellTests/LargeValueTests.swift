import Foundation
import Predicates
import Testing

@testable import Shell

/// Values too big to show (issue 30, class 6): the human formats cut them
/// to a bound, between characters and escapes, with their size; JSON and
/// CSV give every byte but write a long value out in blocks as they
/// escape or encode it; and the work a value costs is bounded by the
/// bound, not by the value.
@Suite struct LargeValueTests {
    private func renderer(_ mode: OutputMode, limit: Int, width: Int? = nil, binary: BinaryDisplay = .decoded) -> Renderer {
        Renderer(options: RenderOptions(mode: mode, terminalWidth: width, maxValueWidth: limit, binary: binary))
    }

    private func one(_ value: Value, column: String = "v") -> ResultSet {
        ResultSet(columns: [column], rows: [[.value(value)]])
    }

    // MARK: - The cut form

    @Test func aTableCutsAValueWiderThanTheBoundAndGivesItsSize() {
        let result = ResultSet(columns: ["id", "note"], rows: [
            [.value(.int(1)), .value(.string("abcdefghijklmnop"))],
            [.value(.int(2)), .value(.string("short"))],
        ])
        #expect(renderer(.table, limit: 10).render(result) == """
            ┌────┬───────────────────────┐
            │ id │ note                  │
            ├────┼───────────────────────┤
            │  1 │ abcdefghij…(16 bytes) │
            │  2 │ short                 │
            └────┴───────────────────────┘
            (2 rows)

            """)
    }

    @Test func aValueExactlyAsWideAsTheBoundIsWhole() {
        #expect(renderer(.line, limit: 5).render(one(.string("abcde"))) == "v = abcde\n")
        #expect(renderer(.line, limit: 5).render(one(.string("abcdef"))) == "v = abcde…(6 bytes)\n")
    }

    @Test(arguments: [
        // Wide characters: 日本 takes 4 columns, 語 would make 6.
        ("日本語日本語", 5, "日本…(18 bytes)"),
        // A letter and its combining accent are one character.
        ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}e\u{301}…(9 bytes)"),
        // A flag is two scalars, one character of two columns.
        ("🇯🇵🇫🇷🇩🇪", 5, "🇯🇵🇫🇷…(24 bytes)"),
        // An emoji sequence joined by ZWJs is one character.
        ("👩‍👩‍👧‍👦x", 1, "…(26 bytes)"),
        // Characters of no width still count one each.
        (String(repeating: "\u{200B}", count: 20), 3, "\u{200B}\u{200B}\u{200B}…(60 bytes)"),
    ])
    func aCutFallsBetweenCharacters(value: String, limit: Int, shown: String) {
        #expect(renderer(.line, limit: limit).render(one(.string(value))) == "v = \(shown)\n")
    }

    @Test func aCutNeverSplitsAnEscape() {
        // `\u{1b}` takes six columns: with 7 it does not fit after "ab".
        let value = "ab\u{1B}[31mred"
        #expect(renderer(.table, limit: 7, width: 10).render(one(.string(value))) == """
            -[ RECORD 1 ]
            v | ab…(10 bytes)
            (1 row)

            """)
        #expect(renderer(.table, limit: 8, width: 10).render(one(.string(value))) == """
            -[ RECORD 1 ]
            v | ab\\u{1b}…(10 bytes)
            (1 row)

            """)
        // CR LF is one character: both escapes or neither.
        #expect(renderer(.table, limit: 4, width: 10).render(one(.string("a\r\nb"))) == """
            -[ RECORD 1 ]
            v | a…(4 bytes)
            (1 row)

            """)
    }

    @Test func aBlobShowsWholeBytesAndItsSize() {
        let blob = Data(0..<20)
        #expect(renderer(.line, limit: 10, binary: .raw).render(one(.data(blob))) == "v = x'00010203…(20 bytes)\n")
        #expect(renderer(.line, limit: 11, binary: .raw).render(one(.data(blob))) == "v = x'00010203…(20 bytes)\n")
        #expect(renderer(.line, limit: 11, binary: .raw).render(one(.data(Data([1, 2, 3, 4])))) == "v = x'01020304'\n")
        // Not raw: the size and first bytes, cut like any text.
        #expect(renderer(.line, limit: 100).render(one(.data(blob))) == "v = <20 bytes 0001020304050607…>\n")
        #expect(renderer(.line, limit: 10).render(one(.data(blob))) == "v = <20 bytes …(20 bytes)\n")
    }

    @Test func eachKeyOfAListIsCutOnItsOwn() {
        let result = ResultSet(columns: ["tags"], rows: [[.list([.string("abcdefgh"), .string("ab")])]])
        #expect(renderer(.line, limit: 4).render(result) == "tags = [abcd…(8 bytes), ab]\n")
    }

    @Test func laterRowsAreCutToo() {
        var text = ""
        let writer = RowWriter(columns: ["v"], options: RenderOptions(mode: .table, maxValueWidth: 3)) { text += $0 }
        for _ in 0..<RowWriter.pageSize { writer.add([.value(.string("ab"))]) }
        writer.add([.value(.string("abcdef"))])
        writer.finish()
        #expect(text.contains("│ abc…(6 bytes) │\n"))
    }

    @Test func theDefaultBoundIsAThousandColumns() {
        let value = String(repeating: "é", count: 1500)
        let text = Renderer().render(one(.string(value)))
        #expect(text.contains(String(repeating: "é", count: 1000) + "…(3,000 bytes) │"))
        #expect(!text.contains(String(repeating: "é", count: 1001)))
    }

    /// Line mode and a bare value keep newlines and tabs, which lay text
    /// out, and escape every other control character: a value cannot
    /// move the cursor, recolour or clear the terminal.
    @Test func lineModeEscapesControlCharactersButLineBreaks() {
        let value = "a\u{1B}[31mb\nc\td\re\u{7}\u{9B}"
        #expect(renderer(.line, limit: 100).render(one(.string(value))) == "v = a\\u{1b}[31mb\nc\td\\re\\u{7}\\u{9b}\n")
        #expect(renderer(.table, limit: 100).render(scalar: .string(value), label: nil) == "a\\u{1b}[31mb\nc\td\\re\\u{7}\\u{9b}\n")
        #expect(!renderer(.line, limit: 100).render(one(.string(value))).unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" })
    }

    /// `let x = …` says what `x` holds on one line, a big value cut and
    /// its control characters escaped, as a table shows it.
    @Test func aLetBindingDescribesABigValueCut() throws {
        let shell = try ShellHarness()
        let long = String(repeating: "ab\\u001b", count: 2_000)
        let result = shell.run("let x = \"\(long)\"")
        #expect(result.ok, "\(result.errors)")
        let said = result.text + result.errors
        #expect(said.hasPrefix("x = ab\\u{1b}ab\\u{1b}"))
        #expect(said.hasSuffix("…(6,000 bytes)\n"))
        #expect(!said.unicodeScalars.contains("\u{1B}"))
        #expect(said.utf8.count < 1_100)
    }

    // MARK: - Bounded work

    /// A 50 MiB value is shown after looking at no more than the bound's
    /// worth of it, and its table is as wide as the bound.
    @Test func aHugeValueCostsWhatTheBoundCosts() {
        let size = 50 << 20
        let huge = String(repeating: "lorem ipsum ", count: size / 12)
        let shown = ShownCell(.value(.string(huge)), nullText: "NULL", listLimit: 5, limit: 1000, escaping: .all)
        #expect(shown.examined <= 1000 * ShownCell.bytesPerColumn + 64)
        #expect(shown.text.hasSuffix("…(\(WorkProgress.grouped(huge.utf8.count)) bytes)"))
        #expect(shown.width <= 1000 + 30)
        let table = Renderer().render(one(.string(huge)))
        #expect(table.utf8.count < 20_000)
        #expect(table.split(separator: "\n").allSatisfy { displayWidth($0) <= 1000 + 40 })
    }

    /// The hostile shapes: one character of millions of combining marks,
    /// millions of control characters, invisible ones, a huge blob.
    @Test func hostileShapesAreBoundedToo() {
        let shapes: [Value] = [
            .string("e" + String(repeating: "\u{301}", count: 2_000_000)),
            .string(String(repeating: "\u{1B}[2J", count: 1_000_000)),
            .string(String(repeating: "\n", count: 4_000_000)),
            .string(String(repeating: "\u{200B}", count: 1_000_000)),
            .data(Data(count: 64 << 20)),
        ]
        for (index, value) in shapes.enumerated() {
            for escaping in [ShownCell.Escaping.all, .keepingLines] {
                let shown = ShownCell(.value(value), nullText: "NULL", listLimit: 5, limit: 100, escaping: escaping)
                #expect(shown.examined <= 100 * ShownCell.bytesPerColumn + 64, "shape \(index)")
                #expect(shown.text.utf8.count <= 100 * ShownCell.bytesPerColumn + 100, "shape \(index)")
                // The size: after a cut, or in a blob's preview.
                #expect(shown.text.contains(" bytes)") || shown.text.hasPrefix("<64.0 MB"), "shape \(index)")
            }
            let raw = ShownCell(.value(value), nullText: "NULL", listLimit: 5, limit: 100, escaping: .all, binary: .raw)
            #expect(raw.text.utf8.count <= 100 * ShownCell.bytesPerColumn + 100, "shape \(index)")
            #expect(raw.text.contains(" bytes)"), "shape \(index)")
        }
    }

    // MARK: - Machine formats: whole, streamed

    /// Text that needs every kind of escape, several blocks long.
    private static let awkward: String = {
        var text = ""
        for i in 0..<60_000 { text += "row \(i), \"quoted\"\\ é日🇯🇵\n\t\u{1}" }
        return text
    }()

    /// What a writer writes for one row of `values`, and the longest single
    /// write.
    private func written(_ mode: OutputMode, _ columns: [String], _ row: [Value], binary: BinaryDisplay = .decoded) -> (text: String, longest: Int) {
        var pieces: [String] = []
        let writer = RowWriter(columns: columns, options: RenderOptions(mode: mode, binary: binary)) { pieces.append($0) }
        writer.add(row.map { .value($0) })
        writer.finish()
        return (pieces.joined(), pieces.map(\.utf8.count).max() ?? 0)
    }

    @Test func jsonGivesABigValueWholeInBlocks() throws {
        let blob = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(Self.awkward.utf8.count > 2_000_000)
        let (text, longest) = written(.json, ["note", "blob"], [.string(Self.awkward), .data(blob)])
        #expect(longest <= 2 * TextBuffer.spillSize + 1024)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: String]])
        #expect(parsed.count == 1)
        #expect(parsed.first?["note"] == Self.awkward)
        #expect(parsed.first?["blob"].flatMap { Data(base64Encoded: $0) } == blob)
    }

    @Test func csvGivesABigValueWholeInBlocks() throws {
        let blob = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0) })
        let (text, longest) = written(.csv, ["note", "blob"], [.string(Self.awkward), .data(blob)], binary: .raw)
        #expect(longest <= 2 * TextBuffer.spillSize + 1024)
        let records = Self.parseCSV(text)
        #expect(records.count == 2)
        #expect(records.first == ["note", "blob"])
        #expect(records.last?.first == Self.awkward)
        #expect(records.last?.last == "x'" + blob.map { String(format: "%02x", $0) }.joined() + "'")
    }

    /// A block ends between characters: text with no escape in it, whose
    /// characters take 2, 3 and 4 bytes, is cut into blocks at many
    /// offsets and still reads back whole.
    @Test func blocksNeverSplitACharacter() throws {
        for prefix in ["", "a", "ab", "abc"] {
            let text = prefix + String(repeating: "日本é🇯🇵", count: 30_000)
            let json = written(.json, ["t"], [.string(text)])
            #expect(json.longest < json.text.utf8.count)
            let parsed = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [[String: String]]
            #expect(parsed?.first?["t"] == text)
            let csv = written(.csv, ["t"], [.string(text + ",")])
            #expect(Self.parseCSV(csv.text).last == [text + ","])
        }
    }

    @Test func base64InBlocksIsTheWholeEncoding() {
        for count in [0, 1, 2, 3, 4, 49_151, 49_152, 49_153, 200_000] {
            let data = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 31) })
            var text = TextBuffer()
            ValueFormatter.appendBase64(data, to: &text)
            #expect(text.string == data.base64EncodedString(), "\(count) bytes")
            // A slice (its indices do not start at 0) encodes the same.
            let slice = (Data([9]) + data)[1...]
            var sliced = TextBuffer()
            ValueFormatter.appendBase64(slice, to: &sliced)
            #expect(sliced.string == data.base64EncodedString(), "\(count) bytes, sliced")
        }
    }

    /// RFC 4180, as the renderer writes it: `\n` between records.
    private static func parseCSV(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                record.append(String(decoding: field, as: UTF8.self))
                field = []
            } else if byte == UInt8(ascii: "\n") {
                record.append(String(decoding: field, as: UTF8.self))
                records.append(record)
                (record, field) = ([], [])
            } else {
                field.append(byte)
            }
            i += 1
        }
        return records
    }
}
