import Foundation

// A fuzz target by name: `mrq-fuzz TARGET ARGUMENTS…`.
//
// Built by `make fuzz` (instrumented, with libFuzzer linked in), the
// arguments go to libFuzzer:
//
//     mrq-fuzz predicate -max_total_time=60 corpus/ Fuzz/predicate
//     mrq-fuzz model crash-1234                # replays one crash
//
// Built plainly (`swift build`), it replays files and folders of inputs
// through the target: the seed corpora run this way in `make test`.
//
//     mrq-fuzz statement Fuzz/statement
let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let harness = Harness(rawValue: name) else {
    FileHandle.standardError.write(Data("usage: mrq-fuzz (\(Harness.allCases.map(\.rawValue).joined(separator: "|"))) ARGUMENTS...\n".utf8))
    exit(64)
}
Harness.selected = harness

/// libFuzzer's driver, present when `make fuzz` linked libFuzzer in (and
/// exported its symbols); nil in a plain build.
typealias FuzzerDriver = @convention(c) (
    UnsafeMutablePointer<CInt>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
if let symbol = dlsym(nil, "LLVMFuzzerRunDriver") {
    let driver = unsafeBitCast(symbol, to: FuzzerDriver.self)
    // libFuzzer reads argv[0] and its own flags: drop the target's name.
    var argv: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
    argv += (2..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
    argv.append(nil)
    var argc = CInt(argv.count - 1)
    let status = argv.withUnsafeMutableBufferPointer { buffer in
        var base = buffer.baseAddress
        return driver(&argc, &base) { bytes, count in fuzzOneInput(bytes, count) }
    }
    exit(status)
}

guard arguments.count > 1 else {
    FileHandle.standardError.write(Data("mrq-fuzz: name the files or folders of inputs to replay\n".utf8))
    exit(64)
}
var inputs: [URL] = []
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        FileHandle.standardError.write(Data("mrq-fuzz: no such file or folder: \(path)\n".utf8))
        exit(66)
    }
    if isDirectory.boolValue {
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        inputs += names.filter { !$0.hasPrefix(".") }.map { url.appendingPathComponent($0) }
    } else {
        inputs.append(url)
    }
}
for input in inputs {
    harness.run(try Data(contentsOf: input))
}
print("\(name): \(inputs.count) inputs ran")
