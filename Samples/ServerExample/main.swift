// A server-style program on mrq's MagicalRecord API: the setup a server or
// a command-line tool should use (`.server`: private-queue contexts only,
// save completions on a queue of their own), async/await saves, and
// readers running in parallel, each on a context of its own.
//
// Its main thread is busy elsewhere, as a server's event loop is: nothing
// here may need the main queue. With the app setup (a main-queue default
// context, completions on the main queue) this program would hang.
//
// Build and run: swift run server-example [path/to/Samples]
import ActiveRecord
import Foundation
import ObjectStore
import Predicates

final class Person: ManagedObject {
    @Managed("personID") var personID: Int64
    @Managed("FirstName") var firstName: String?
    @Managed("age") var age: Int16?
    @Managed("active") var active: Bool?
}

let samples = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Samples")
let model = try ManagedObjectModel(contentsOf: samples.appendingPathComponent("People.xcdatamodeld"))
try model.register(Person.self)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("server-example-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
try MagicalRecord.setupCoreDataStack(model: model, storeAt: folder.appendingPathComponent("people.sqlite"), options: .server)

// Top-level code awaits the save itself: when this line returns, the rows
// are in the store.
try await MagicalRecord.save { context in
    for i in 1...1_000 {
        let person = try Person.create(in: context)
        person.personID = Int64(i)
        person.firstName = "Person \(i)"
        person.age = Int16(i % 90)
        person.active = i % 3 != 0
    }
}
print("saved: \(try Person.count()) people")

/// The requests a server answers: each on a private context of its own,
/// all at once.
func answerRequests() async throws -> [Int] {
    try await withThrowingTaskGroup(of: (Int, Int).self) { group in
        for minimumAge in stride(from: 0, to: 80, by: 10) {
            group.addTask {
                let context = try MagicalRecord.stack.newPrivateContext()
                let count = try await context.perform {
                    try Person.count(where: "age >= %d AND active == YES", minimumAge, in: context)
                }
                return (minimumAge, count)
            }
        }
        var answers: [(Int, Int)] = []
        for try await answer in group { answers.append(answer) }
        return answers.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

// The main thread now waits on a semaphore, as a server's would in its
// event loop; the work runs on other threads and must not need it.
let finished = DispatchSemaphore(value: 0)
nonisolated(unsafe) var answers: [Int] = []
nonisolated(unsafe) var completion = ""
Task.detached {
    answers = try await answerRequests()
    // A save block with a completion handler: it runs on the stack's
    // completion queue, not the (busy) main queue.
    MagicalRecord.save({ context in
        for person in try Person.findAll(where: "age < %d", 10, in: context) { person.active = false }
    }, completion: { saved, error in
        completion = "completion: saved \(saved), error \(error.map { "\($0)" } ?? "none")"
        finished.signal()
    })
}
finished.wait()
print("active people aged at least 0, 10, …, 70: " + answers.map(String.init).joined(separator: ", "))
print(completion)
print("inactive now: \(try Person.count(where: "active == NO"))")
