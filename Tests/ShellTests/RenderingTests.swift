import Foundation
import Predicates
import Testing

@testable import Shell

// Exact expected output for every mode. Multi-line string literals end
// with a newline before the closing quotes, as rendered text does.

private let people = ResultSet(
    columns: ["name", "age", "friends"],
    rows: [
        [.value(.string("Ada")), .value(.int(36)), .list([.string("Grace"), .string("Linus")])],
        [.value(.string("Grace")), .value(.null), .list([])],
    ]
)

private func renderer(
    _ mode: OutputMode, color: Bool = false, width: Int? = nil, headers: Bool = true
) -> Renderer {
    Renderer(options: RenderOptions(mode: mode, headers: headers, color: color, terminalWidth: width))
}

private func date(_ iso: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: iso) { return date }
    return ISO8601DateFormatter().date(from: iso)!
}

// MARK: Table

@Test func tableRightAlignsNumbersAndCountsRows() {
    #expect(renderer(.table).render(people) == """
        ┌───────┬──────┬────────────────┐
        │ name  │  age │ friends        │
        ├───────┼──────┼────────────────┤
        │ Ada   │   36 │ [Grace, Linus] │
        │ Grace │ NULL │ []             │
        └───────┴──────┴────────────────┘
        (2 rows)

        """)
}

@Test func tableWithoutHeadersHasNoHeaderRow() {
    let result = ResultSet(columns: ["n"], rows: [[.value(.int(1))], [.value(.int(10))]])
    #expect(renderer(.table, headers: false).render(result) == """
        ┌────┐
        │  1 │
        │ 10 │
        └────┘
        (2 rows)

        """)
}

@Test func emptyTableStillShowsItsColumns() {
    let result = ResultSet(columns: ["name"], rows: [])
    #expect(renderer(.table).render(result) == """
        ┌──────┐
        │ name │
        ├──────┤
        └──────┘
        (0 rows)

        """)
}

@Test func tableMeasuresWideAndCombiningCharacters() {
    let result = ResultSet(
        columns: ["city", "n"],
        rows: [
            [.value(.string("東京")), .value(.int(1))],
            [.value(.string("Zu\u{308}rich")), .value(.int(2))],
            [.value(.string("🇯🇵 ok")), .value(.int(3))],
        ]
    )
    #expect(renderer(.table).render(result) == """
        ┌────────┬───┐
        │ city   │ n │
        ├────────┼───┤
        │ 東京   │ 1 │
        │ Zu\u{308}rich │ 2 │
        │ 🇯🇵 ok  │ 3 │
        └────────┴───┘
        (3 rows)

        """)
}

@Test(arguments: [
    ("abc", 3), ("日本語", 6), ("e\u{301}", 1), ("한국", 4), ("ｱ", 1), ("Ａ", 2),
    ("👍", 2), ("❤\u{FE0F}", 2), ("a\u{200B}b", 2), ("", 0),
])
func displayWidthCountsTerminalColumns(text: String, width: Int) {
    #expect(displayWidth(text) == width)
}

@Test func tableEscapesLineBreaksInsideCells() {
    let result = ResultSet(columns: ["note"], rows: [[.value(.string("a\nb\tc"))]])
    #expect(renderer(.table).render(result) == """
        ┌─────────┐
        │ note    │
        ├─────────┤
        │ a\\nb\\tc │
        └─────────┘
        (1 row)

        """)
}

@Test func groupsCountGroupsInTheFooter() {
    let result = ResultSet(
        columns: ["city", "count"],
        rows: [[.value(.string("Paris")), .value(.int(2))]]
    )
    #expect(renderer(.table).render(groups: result) == """
        ┌───────┬───────┐
        │ city  │ count │
        ├───────┼───────┤
        │ Paris │     2 │
        └───────┴───────┘
        (1 group)

        """)
}

// MARK: Vertical fallback

@Test func rowsWiderThanTheTerminalRenderAsRecords() {
    // The table would be 34 columns wide.
    #expect(renderer(.table, width: 30).render(people) == """
        -[ RECORD 1 ]-----------
        name    | Ada
        age     | 36
        friends | [Grace, Linus]
        -[ RECORD 2 ]-----------
        name    | Grace
        age     | NULL
        friends | []
        (2 rows)

        """)
}

@Test func tableThatFitsExactlyStaysATable() {
    #expect(renderer(.table, width: 34).render(people).hasPrefix("┌"))
}

@Test func recordRuleIsCappedAtTheTerminalWidth() {
    let long = String(repeating: "x", count: 40)
    let result = ResultSet(columns: ["k"], rows: [[.value(.string(long))]])
    #expect(renderer(.table, width: 20).render(result) == """
        -[ RECORD 1 ]-------
        k | \(long)
        (1 row)

        """)
}

// MARK: Colour

@Test func colourMarksHeadersNullsAndNumbersOnly() {
    let result = ResultSet(
        columns: ["a", "b"],
        rows: [[.value(.int(7)), .value(.null)], [.value(.string("x")), .value(.string("y"))]]
    )
    let bold = "\u{1B}[1m", dim = "\u{1B}[2m", cyan = "\u{1B}[36m", reset = "\u{1B}[0m"
    #expect(renderer(.table, color: true).render(result) == """
        ┌───┬──────┐
        │ \(bold)a\(reset) │ \(bold)b\(reset)    │
        ├───┼──────┤
        │ \(cyan)7\(reset) │ \(dim)NULL\(reset) │
        │ x │ y    │
        └───┴──────┘
        (2 rows)

        """)
}

@Test func noEscapeSequencesWhenColourIsOff() {
    for mode in OutputMode.allCases {
        #expect(!renderer(mode).render(people).contains("\u{1B}"))
    }
}

@Test func machineFormatsIgnoreColour() {
    #expect(!renderer(.json, color: true).render(people).contains("\u{1B}"))
    #expect(!renderer(.csv, color: true).render(people).contains("\u{1B}"))
}

// MARK: Line

@Test func lineModeRightAlignsNamesAndSeparatesRows() {
    #expect(renderer(.line).render(people) == """
           name = Ada
            age = 36
        friends = [Grace, Linus]

           name = Grace
            age = NULL
        friends = []

        """)
}

@Test func lineModeOfNothingIsEmpty() {
    #expect(renderer(.line).render(ResultSet(columns: ["a"], rows: [])) == "")
}

// MARK: JSON

@Test func jsonIsAnArrayOfObjectsInColumnOrder() {
    #expect(renderer(.json).render(people) == """
        [
          {
            "name": "Ada",
            "age": 36,
            "friends": ["Grace", "Linus"]
          },
          {
            "name": "Grace",
            "age": null,
            "friends": []
          }
        ]

        """)
}

@Test func jsonOfNoRowsIsAnEmptyArray() {
    #expect(renderer(.json).render(ResultSet(columns: ["a"], rows: [])) == "[]\n")
}

@Test func jsonEscapesQuotesBackslashesAndControlCharacters() {
    let result = ResultSet(
        columns: ["s\"k"],
        rows: [[.value(.string("a\"b\\c\nd\te\u{01}f\u{1F}/é日"))]]
    )
    #expect(renderer(.json).render(result) == """
        [
          {
            "s\\"k": "a\\"b\\\\c\\nd\\te\\u0001f\\u001f/é日"
          }
        ]

        """)
}

@Test func jsonSpellsEveryKindOfValue() throws {
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let values: [(label: String, value: Value)] = [
        ("null", .null), ("bool", .bool(true)), ("int", .int(-42)),
        ("double", .double(3.5)), ("integral", .double(2)), ("huge", .double(1e20)),
        ("tiny", .double(.leastNonzeroMagnitude)), ("infinite", .double(.infinity)),
        ("decimal", .decimal(Decimal(string: "12.340")!)),
        ("date", .date(date("2024-01-31T10:00:00Z"))),
        ("millis", .date(date("2024-01-31T10:00:00.250Z"))),
        ("data", .data(Data([0, 1, 254, 255]))), ("uuid", .uuid(uuid)),
        ("url", .url(URL(string: "https://example.com/a?b=c")!)),
    ]
    #expect(renderer(.json).render(values: values) == """
        {
          "null": null,
          "bool": true,
          "int": -42,
          "double": 3.5,
          "integral": 2.0,
          "huge": 1e+20,
          "tiny": 5e-324,
          "infinite": null,
          "decimal": 12.34,
          "date": "2024-01-31T10:00:00Z",
          "millis": "2024-01-31T10:00:00.250Z",
          "data": "AAH+/w==",
          "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
          "url": "https://example.com/a?b=c"
        }

        """)
}

@Test func jsonDoublesParseBackToTheSameDouble() throws {
    for number in [0.1, 1.0 / 3.0, 1e300, -2.5e-8, 123456789.125] {
        let text = renderer(.json).render(scalar: .double(number), label: nil)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        #expect((parsed as? NSNumber)?.doubleValue == number)
    }
}

@Test func jsonScalarIsABareValue() {
    #expect(renderer(.json).render(scalar: .int(3), label: "count") == "3\n")
}

@Test func jsonOutputParsesWithFoundation() throws {
    let text = renderer(.json).render(people)
    let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
    #expect(parsed?.count == 2)
    #expect(parsed?.first?["friends"] as? [String] == ["Grace", "Linus"])
}

// MARK: CSV

@Test func csvQuotesOnlyWhenNeeded() {
    let result = ResultSet(
        columns: ["plain", "comma,name", "text"],
        rows: [
            [.value(.string("a")), .value(.string("b,c")), .value(.string("say \"hi\""))],
            [.value(.string("")), .value(.null), .value(.string("two\nlines"))],
            [.value(.int(1)), .value(.double(2.5)), .list([.int(1), .int(2)])],
        ]
    )
    #expect(renderer(.csv).render(result) == #"""
        plain,"comma,name",text
        a,"b,c","say ""hi"""
        "",,"two
        lines"
        1,2.5,"[1, 2]"

        """#)
}

@Test func csvWithoutHeaders() {
    #expect(renderer(.csv, headers: false).render(people) == """
        Ada,36,"[Grace, Linus]"
        Grace,,[]

        """)
}

// MARK: Values as text

@Test func textFormsOfValues() throws {
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let values: [(label: String, value: Value)] = [
        ("bool", .bool(false)), ("double", .double(2)), ("huge", .double(1e20)),
        ("date", .date(date("2024-01-31T10:00:00Z"))),
        ("millis", .date(date("1969-12-31T23:59:59.500Z"))),
        ("data", .data(Data([0x01, 0xAB]))), ("uuid", .uuid(uuid)), ("null", .null),
    ]
    #expect(renderer(.line).render(values: values) == """
          bool = false
        double = 2.0
          huge = 1e+20
          date = 2024-01-31 10:00:00
        millis = 1969-12-31 23:59:59.500
          data = <2 bytes 01ab>
          uuid = E621E1F8-C36C-495A-93FC-0C247A3E6E5F
          null = NULL

        """)
}

@Test func nullTextIsConfigurable() {
    var options = RenderOptions(mode: .table)
    options.nullText = "∅"
    let result = ResultSet(columns: ["x"], rows: [[.value(.null)]])
    #expect(Renderer(options: options).render(result) == """
        ┌───┐
        │ x │
        ├───┤
        │ ∅ │
        └───┘
        (1 row)

        """)
}

// MARK: Scalars

@Test func scalarsInEachMode() {
    #expect(renderer(.table).render(scalar: .int(3), label: nil) == "3\n")
    #expect(renderer(.line).render(scalar: .int(3), label: "count") == "count = 3\n")
    #expect(renderer(.csv).render(scalar: .int(3), label: "count") == "count\n3\n")
    #expect(renderer(.table).render(scalar: .double(36.5), label: "avg(age)") == """
        ┌──────────┐
        │ avg(age) │
        ├──────────┤
        │     36.5 │
        └──────────┘

        """)
}

@Test func recordsAndLinesAreColouredLikeTables() {
    let result = ResultSet(columns: ["id", "note"], rows: [[.value(.int(1)), .value(.null)]])
    let bold = "\u{1B}[1m", dim = "\u{1B}[2m", cyan = "\u{1B}[36m", reset = "\u{1B}[0m"
    #expect(renderer(.table, color: true, width: 10).render(result) == """
        -[ RECORD 1 ]
        \(bold)id\(reset)   | \(cyan)1\(reset)
        \(bold)note\(reset) | \(dim)NULL\(reset)
        (1 row)

        """)
    #expect(renderer(.line, color: true).render(result) == """
          \(bold)id\(reset) = \(cyan)1\(reset)
        \(bold)note\(reset) = \(dim)NULL\(reset)

        """)
}

@Test func groupsInJSONAreAnArrayOfObjects() {
    let result = ResultSet(
        columns: ["city", "count"],
        rows: [[.value(.string("Paris")), .value(.int(2))], [.value(.null), .value(.int(1))]]
    )
    #expect(renderer(.json).render(groups: result) == """
        [
          {
            "city": "Paris",
            "count": 2
          },
          {
            "city": null,
            "count": 1
          }
        ]

        """)
}

@Test func decimalsAreRightAlignedLikeOtherNumbers() {
    let result = ResultSet(
        columns: ["price"],
        rows: [[.value(.decimal(Decimal(string: "9.99")!))], [.value(.decimal(Decimal(100)))]]
    )
    #expect(renderer(.table).render(result) == """
        ┌───────┐
        │ price │
        ├───────┤
        │  9.99 │
        │   100 │
        └───────┘
        (2 rows)

        """)
}
