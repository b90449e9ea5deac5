@testable import ObjectStore
import Testing

/// The set of changed relationship indexes: bits below 64, hashed above,
/// always listed in order.
@Suite struct SlotSetTests {
    @Test func listsIndexesInOrderOnBothSidesOf64() {
        var set = SlotSet()
        #expect(set.isEmpty && set.sorted().isEmpty)
        for index in [70, 3, 0, 63, 3, 64, 200] { set.insert(index) }
        #expect(set.sorted() == [0, 3, 63, 64, 70, 200])
        #expect(!set.isEmpty)
        set.removeAll()
        #expect(set.isEmpty && set.sorted().isEmpty)
        set.insert(5)
        #expect(set.sorted() == [5])
    }
}
