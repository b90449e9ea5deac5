import Foundation

/// What `.timer on` reports after each statement, as sqlite3 does: the
/// wall-clock time, and the processor time spent in mrq and in the system
/// for it (getrusage).
///
/// ```swift
/// let start = RunTime.now()
/// // … run a statement …
/// output.status(start.report())   // Run Time: real 0.012 user 0.010113 sys 0.001021
/// ```
struct RunTime {
    private let real: UInt64
    private let user: Double
    private let system: Double

    static func now() -> RunTime {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return RunTime(real: DispatchTime.now().uptimeNanoseconds, user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    /// The times since `self`, in seconds.
    func report() -> String {
        let end = RunTime.now()
        let real = Double(end.real - self.real) / 1e9
        return String(format: "Run Time: real %.3f user %.6f sys %.6f", real, end.user - user, end.system - system)
    }
}
