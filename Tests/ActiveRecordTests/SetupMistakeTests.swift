import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

final class Gadget: ManagedObject {
    @Managed("name") var name: String?
    @Managed("weight") var weight: Double
    @ManagedToOne("owner") var owner: Owner?
}

final class Owner: ManagedObject {
    @Managed("name") var name: String?
    @ManagedToMany("gadgets") var gadgets: [Gadget]
}

/// A class whose properties disagree with its entity in every way the
/// check looks at.
final class WrongGadget: ManagedObject {
    override class var entityName: String { "Gadget" }
    @Managed("weight") var weight: String
    @Managed("nmae") var name: String?
    @ManagedToMany("owner") var owner: [Owner]
}

/// Model and subclass mistakes are caught at setup, with names (issue 19,
/// item 6), and MagicalRecord without a stack throws instead of crashing.
@Suite(.serialized) struct SetupMistakeTests {
    static func model(weightDefault: Value = .int(0)) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Gadget") {
                Attribute("name", .string)
                Attribute("weight", .double, optional: false, default: weightDefault)
                ToOne("owner", "Owner", inverse: "gadgets")
            }
            Entity("Owner") {
                Attribute("name", .string)
                ToMany("gadgets", "Gadget", inverse: "owner")
            }
        }
    }

    @Test func anIntegerDefaultOnADoubleIsConverted() throws {
        let model = try Self.model()
        #expect(model.entity(named: "Gadget")?.attribute(named: "weight")?.defaultValue == .double(0))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let gadget = context.insertObject(forEntityName: "Gadget")
        try context.save()
        #expect(gadget["weight"] == .double(0))
    }

    @Test func aDefaultThatCannotConvertStopsTheModelWithItsName() throws {
        #expect {
            _ = try Self.model(weightDefault: .string("heavy"))
        } throws: { error in
            "\(error)".contains("Gadget.weight") && "\(error)".contains("default")
        }
    }

    @Test func registeringChecksEveryManagedProperty() throws {
        let model = try Self.model()
        try model.register(Gadget.self)
        try model.register(Owner.self)
        #expect {
            try model.register(WrongGadget.self)
        } throws: { error in
            let text = "\(error)"
            return error is ModelError && text.contains("String cannot hold weight, a Double attribute")
                && text.contains("@Managed(\"nmae\") names no attribute of Gadget (did you mean 'name'?)")
                && text.contains("owner is a to-one relationship; use @ManagedToOne")
        }
        final class Nowhere: ManagedObject {}
        #expect(throws: ModelError.self) { try model.register(Nowhere.self) }
        // The failed registration left the right class in place.
        #expect(model.isRegistered(Gadget.self))
    }

    @Test func findersOnAClassNeverRegisteredRegisterIt() throws {
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let writer = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let row = writer.insertObject(forEntityName: "Owner")
        row["name"] = .string("Ada")
        try writer.save()
        // A fresh model object: Owner was never registered with it, and no
        // Owner object was created first.
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let owners = try Owner.findAll(in: context)
        #expect(owners.map(\.name) == ["Ada"])
        #expect(model.isRegistered(Owner.self))
    }

    @Test func findersOnAClassThatDoesNotFitSaySo() throws {
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(throws: ModelError.self) { _ = try WrongGadget.findAll(in: context) }
        #expect(throws: ModelError.self) { _ = try WrongGadget.create(in: context) }
    }
}

/// In SavingTests' serialized suite: the stack is the process's, and
/// those tests set it up.
extension SavingTests {
    @Test func cleanUpLeavesErrorsNotCrashes() async throws {
        MagicalRecord.cleanUp()
        #expect(throws: MagicalRecordError.noStack) { _ = try MagicalRecord.defaultContext }
        #expect(throws: MagicalRecordError.noStack) { _ = try Owner.findAll() }
        #expect(throws: MagicalRecordError.noStack) { _ = try Owner.count() }
        #expect(throws: MagicalRecordError.noStack) { _ = try Owner.create() }
        #expect(throws: MagicalRecordError.noStack) { try MagicalRecord.saveAndWait { _ in } }
        await #expect(throws: MagicalRecordError.noStack) { try await MagicalRecord.save { _ in } }
        let error: (any Error)? = await withCheckedContinuation { continuation in
            MagicalRecord.save({ _ in }, completion: { _, error in continuation.resume(returning: error) })
        }
        #expect(error is MagicalRecordError)
        #expect("\(MagicalRecordError.noStack)".contains("setupCoreDataStack"))
    }
}
