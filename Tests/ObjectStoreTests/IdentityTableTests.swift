import Testing
@testable import ObjectStore

/// The schema mapping's identity tables find every object they were
/// built with, and nothing else.
@Suite struct IdentityTableTests {
    final class Key {}

    /// Every key of many is found with its own element (however the
    /// addresses fall into buckets), an object not in the table is not,
    /// and an empty table finds nothing.
    @Test(arguments: [0, 1, 3, 4, 5, 100, 1_000])
    func findsEachKeyItWasBuiltWith(count: Int) {
        let keys = (0..<count).map { _ in Key() }
        var dictionary: [ObjectIdentifier: Int] = [:]
        for (i, key) in keys.enumerated() { dictionary[ObjectIdentifier(key)] = i }
        let table = IdentityTable(dictionary)
        for (i, key) in keys.enumerated() {
            #expect(table[ObjectIdentifier(key)] == i)
        }
        let strangers = (0..<50).map { _ in Key() }
        for stranger in strangers {
            #expect(table[ObjectIdentifier(stranger)] == nil)
        }
    }
}
