import Logging
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
        case off, error, warn, info, debug, verbose

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

    /// The quietest level still logged; `.off` logs nothing.
    public static var level: Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    public static func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level != .off, level <= self.level else { return }
        logger.log(level: level.swiftLog, "\(message())")
    }

    public static func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public static func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    public static func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public static func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public static func verbose(_ message: @autoclosure () -> String) { log(.verbose, message()) }
}
