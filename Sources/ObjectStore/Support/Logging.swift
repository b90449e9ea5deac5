import Logging
import Predicates
import Synchronization

/// mrq's log, through swift-log, with MagicalRecord's levels.
///
/// ```swift
/// MRLog.level = .debug      // or MagicalRecord.setLoggingLevel(.debug)
/// ```
///
/// Messages below `level` are dropped before they reach swift-log; what
/// passes goes to the `mrq` logger, whose handler the application
/// bootstraps (the `mrq` executable writes to standard error).
public enum MRLog {
    /// MagicalRecord's logging levels, quietest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Nothing is logged.
        case off
        /// Failures that cannot be thrown to a caller: a fault that cannot
        /// be fulfilled, fetched results that cannot be refreshed.
        case error
        /// Something probably wrong that did not stop the work (the
        /// default level).
        case warn
        /// What the program does, for following its work.
        case info
        /// Detail for debugging, such as each store migration mrq runs.
        case debug
        /// Everything, the most detailed level.
        case verbose

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        var swiftLog: Logger.Level {
            switch self {
            case .off, .error: return .error
            case .warn: return .warning
            case .info: return .info
            case .debug: return .debug
            case .verbose: return .trace
            }
        }
    }

    private static let current = Mutex<Level>(.warn)
    private static let logger: Logger = {
        var logger = Logger(label: "mrq")
        logger.logLevel = .trace
        return logger
    }()

    /// The most detailed level still logged, with every level before it:
    /// `.warn` (the default) logs errors and warnings; `.off` logs
    /// nothing.
    public static var level: Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Logs `message` at `level`, if `MRLog.level` lets it through; the
    /// message is not even built otherwise. Its control characters are
    /// escaped (see `TerminalText`): a log line can name what a store or
    /// another process sent.
    ///
    /// ```swift
    /// MRLog.log(.info, "opened \(url.path)")
    /// ```
    public static func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level != .off, level <= self.level else { return }
        logger.log(level: level.swiftLog, "\(TerminalText.escaped(message()))")
    }

    /// Logs `message` at `.error` (MagicalRecord's `MRLogError`).
    public static func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Logs `message` at `.warn` (MagicalRecord's `MRLogWarn`).
    public static func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    /// Logs `message` at `.info` (MagicalRecord's `MRLogInfo`).
    public static func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs `message` at `.debug` (MagicalRecord's `MRLogDebug`).
    public static func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Logs `message` at `.verbose` (MagicalRecord's `MRLogVerbose`).
    public static func verbose(_ message: @autoclosure () -> String) { log(.verbose, message()) }
}
