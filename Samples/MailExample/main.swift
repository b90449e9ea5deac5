// The offline cache of a mail client, with mrq's MagicalRecord API:
// import a user's letters from JSON after a network call, then read that
// user's letters split into incoming and outgoing.
//
// Build and run: swift run mail-example [path/to/Samples]
import ActiveRecord
import Foundation
import ObjectStore
import Predicates

final class User: ManagedObject {
    @Managed("userID") var userID: Int64
    @Managed("account") var account: String
    @Managed("writeName") var writeName: String?
    @ManagedToMany("letters") var letters: [Letter]
}

final class Letter: ManagedObject {
    @Managed("pkNumber") var pkNumber: Int64
    @Managed("sender") var sender: String?
    @Managed("content") var content: String?
    @Managed("date") var date: Date?
    @Managed("isRead") var isRead: Bool
    @Managed("incoming") var incoming: Bool
    @ManagedToOne("user") var user: User?
}

/// Stands in for the network call: the letters of every user, as JSON.
func fetchMailFromServer(samples: URL) throws -> Data {
    try Data(contentsOf: samples.appendingPathComponent("mail.json"))
}

let samples = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Samples")
let model = try ManagedObjectModel(contentsOf: samples.appendingPathComponent("Mail.xcdatamodeld"))
try model.register(User.self)
try model.register(Letter.self)
try MagicalRecord.setupInMemoryStack(model: model)

// After the network call: import in the background, save to the store.
let payload = try fetchMailFromServer(samples: samples)
try MagicalRecord.saveAndWait { context in
    try Importer(context: context).importArray(JSON(data: payload), into: model.entity(named: "User")!)
}

// Later, on the main context: one user's letters, split in two.
let context = try MagicalRecord.defaultContext
guard let ada = try User.findFirst(byAttribute: "account", withValue: "ada@example.com", in: context) else {
    fatalError("the import lost Ada")
}
let incoming = try Letter.findAll(where: "user.account == %@ AND incoming == YES", "ada@example.com",
                                  sortedBy: "date", in: context)
let outgoing = ada.letters.filter { !$0.incoming }.sorted { ($0.date ?? .distantPast) < ($1.date ?? .distantPast) }
let unread = try Letter.count(where: "user.account == %@ AND isRead == NO", "ada@example.com", in: context)

print("\(ada.writeName ?? ada.account): \(ada.letters.count) letters, \(unread) unread")
print("incoming: \(incoming.count)")
for letter in incoming.prefix(3) {
    print("  from \(letter.sender ?? "?"): \(letter.content ?? "")")
}
print("outgoing: \(outgoing.count)")
for letter in outgoing.prefix(3) {
    print("  #\(letter.pkNumber): \(letter.content ?? "")")
}
