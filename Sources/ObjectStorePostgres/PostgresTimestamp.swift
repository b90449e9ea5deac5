import Foundation

/// How PostgreSQL's timestamps count time, for the store and for its
/// dialect (which keeps in memory a date constant a timestamp cannot hold
/// exactly).
package enum PostgresTimestamp {
    /// Seconds from PostgreSQL's epoch (2000-01-01) to Foundation's (2001-01-01).
    package static let epochOffset: Int64 = 31_622_400

    /// A date as PostgreSQL's timestamps count: microseconds since
    /// 2000-01-01, rounded; out of range, `infinity` or `-infinity`.
    package static func microseconds(_ date: Date) -> Int64 {
        let value = ((date.timeIntervalSinceReferenceDate + Double(epochOffset)) * 1_000_000).rounded()
        guard value.isFinite, abs(value) < 9.2e18 else { return value > 0 ? .max : .min }
        return Int64(value)
    }

    /// The date of a timestamp in microseconds since 2000-01-01.
    package static func date(microseconds: Int64) -> Date {
        if microseconds == .max { return Date(timeIntervalSinceReferenceDate: .infinity) }
        if microseconds == .min { return Date(timeIntervalSinceReferenceDate: -.infinity) }
        return Date(timeIntervalSinceReferenceDate: Double(microseconds - epochOffset * 1_000_000) / 1_000_000)
    }
}
