import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore

/// The hand-written date parser against DateFormatter (issue 19, item 7):
/// where both parse a text, the dates are equal.
@Suite struct FastDateFormatTests {
    static let patterns = [
        "yyyy-MM-dd'T'HH:mm:ssz", "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ssZZZZZ", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
        "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd", "dd/MM/yyyy HH:mm", "yyyyMMdd", "yyyyMMddHHmmss", "MM-dd-yyyy'T'HH'h'mm",
        "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "yyyy.MM.dd 'at' HH:mm:ss X",
    ]

    static func formatter(_ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = pattern
        return formatter
    }

    @Test func patternsWithOtherFieldsHaveNoFastForm() {
        for pattern in ["dd MMM yyyy", "EEE, dd MM yyyy", "yyyy-MM-dd hh:mm a", "yy-MM-dd", "yyyy-M-d", "G yyyy-MM-dd", "HH:mm:ss"] {
            #expect(FastDateFormat(pattern) == nil, "\(pattern)")
        }
        for pattern in Self.patterns { #expect(FastDateFormat(pattern) != nil, "\(pattern)") }
    }

    @Test func agreesWithDateFormatterOnTheTextItWrites() throws {
        var random = SystemRandomNumberGenerator()
        for pattern in Self.patterns {
            let formatter = Self.formatter(pattern)
            let fast = try #require(FastDateFormat(pattern))
            for _ in 0..<400 {
                // 1583 … 2200, to the millisecond.
                let seconds = Double(Int64.random(in: -12_212_553_600_000...7_258_118_400_000, using: &random)) / 1000
                let text = formatter.string(from: Date(timeIntervalSince1970: seconds))
                let expected = formatter.date(from: text)
                #expect(fast.date(from: text) == expected, "\(pattern): \(text)")
            }
        }
    }

    @Test func zonesAndBadTextAgreeOrFallBack() throws {
        let texts = [
            "2024-01-31T10:00:00Z", "2024-01-31T10:00:00+05:30", "2024-01-31T10:00:00-0800", "2024-01-31T10:00:00GMT",
            "2024-01-31T10:00:00GMT+01:00", "2024-01-31T10:00:00UTC", "2024-02-30T10:00:00Z", "2023-02-29T00:00:00Z",
            "2024-02-29T23:59:59Z", "2024-13-01T00:00:00Z", "2024-01-31T24:00:00Z", "2024-01-31T10:00:60Z",
            "2024-01-31T10:00:00", "2024-01-31T10:00:00Z ", " 2024-01-31T10:00:00Z", "2024-1-31T10:00:00Z",
            "1582-10-10T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-01-31T10:00:00+99:00", "",
        ]
        for pattern in ["yyyy-MM-dd'T'HH:mm:ssz", "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ssXXX"] {
            let formatter = Self.formatter(pattern)
            let fast = try #require(FastDateFormat(pattern))
            for text in texts {
                guard let date = fast.date(from: text) else { continue }
                if let expected = formatter.date(from: text) {
                    #expect(date == expected, "\(pattern): \(text)")
                } else {
                    // Only ISO 8601's zone spellings may go past the formatter.
                    let iso = ISO8601DateFormatter()
                    #expect(iso.date(from: text) == date, "\(pattern): \(text) parsed by neither DateFormatter nor ISO 8601")
                }
            }
        }
        let fast = try #require(FastDateFormat("yyyy-MM-dd'T'HH:mm:ssZ"))
        #expect(fast.date(from: "2024-01-31T10:00:00+05:30") == ISO8601DateFormatter().date(from: "2024-01-31T10:00:00+05:30"))
        #expect(fast.date(from: "1582-10-10T00:00:00Z") == nil)
        #expect(fast.date(from: "2024-02-30T10:00:00Z") == nil)
    }

    @Test func importsADateColumnThroughTheFastPath() throws {
        let event = EntityDescription(name: "Event")
        event.add(AttributeDescription(name: "at", type: .date, userInfo: ["dateFormat": "dd/MM/yyyy HH:mm"]))
        event.add(AttributeDescription(name: "stamp", type: .date))
        let model = try ManagedObjectModel(entities: [event])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let objects = try Importer(context: context).importArray(try JSON(parsing: """
            [{"at": "31/01/2024 10:30", "stamp": "2024-01-31T10:30:00.250Z"}, {"at": "1/1/1970 00:00", "stamp": "2024-01-31T10:30:00GMT"}]
            """), into: event)
        #expect(objects[0]["at"] == .date(Date(timeIntervalSince1970: 1_706_697_000)))
        #expect(objects[0]["stamp"] == .date(Date(timeIntervalSince1970: 1_706_697_000.25)))
        // DateFormatter takes a one-digit day the fast path does not.
        #expect(objects[1]["at"] == .date(Date(timeIntervalSince1970: 0)))
        #expect(objects[1]["stamp"] == .date(Date(timeIntervalSince1970: 1_706_697_000)))
        #expect(throws: ImportError.self) {
            _ = try Importer(context: context).importArray(try JSON(parsing: #"[{"at": "31/02/2024 10:30"}]"#), into: event)
        }
    }
}
