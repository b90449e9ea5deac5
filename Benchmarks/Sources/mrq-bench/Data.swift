import CBaseline
import Foundation
import ObjectStore

/// The seed of every data set: change it and every implementation still
/// handles the same rows as the others.
let dataSeed: UInt64 = 20_240_508

/// One generated person with Swift strings, converted from the C
/// generator before any timed region.
struct Person {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var city: String
    var age: Int16
    var score: Double
    var balance: Double
    /// Seconds since 2001-01-01.
    var createdAt: Double
    var active: Bool
    var department: Int32

    var checksum: Int64 {
        bench_checksum_row(id, Int64(firstName.utf8.count), Int64(lastName.utf8.count), Int64(email.utf8.count),
                           Int64(city.utf8.count), Int64(age), score, balance, createdAt, active ? 1 : 0)
    }
}

enum Dataset {
    /// People 0..<count as C structs (what the C baseline binds).
    static func cPeople(_ count: Int) -> [bench_person] {
        var people = [bench_person](repeating: bench_person(), count: count)
        for i in 0..<count { bench_person_make(dataSeed, Int64(i), &people[i]) }
        return people
    }

    static func people(_ count: Int) -> [Person] {
        cPeople(count).map(person)
    }

    static func person(_ c: bench_person) -> Person {
        var c = c
        func text<T>(_ field: inout T) -> String {
            withUnsafeBytes(of: &field) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        }
        return Person(id: c.id, firstName: text(&c.firstName), lastName: text(&c.lastName), email: text(&c.email),
                      city: text(&c.city), age: c.age, score: c.score, balance: c.balance, createdAt: c.createdAt,
                      active: c.active != 0, department: c.department)
    }

    static func departmentName(_ index: Int32) -> String {
        String(cString: bench_department_name(index))
    }

    static func checksum(_ people: [Person]) -> Int64 {
        people.reduce(0) { $0 &+ $1.checksum }
    }

    /// The import input: MagicalRecord-style JSON with mapped keys, dates
    /// in Unix milliseconds and the department as a nested object.
    static func importJSON(_ people: [Person]) -> String {
        var text = "[\n"
        text.reserveCapacity(people.count * 260)
        for (n, p) in people.enumerated() {
            let millis = Int64((p.createdAt + Date.timeIntervalBetween1970AndReferenceDate) * 1000)
            text += #"{"id": \#(p.id), "first_name": "\#(p.firstName)", "last_name": "\#(p.lastName)", "#
            text += #""email": "\#(p.email)", "age": \#(p.age), "score": \#(p.score), "balance": \#(p.balance), "#
            text += #""city": "\#(p.city)", "created_at": \#(millis), "active": \#(p.active), "#
            text += #""department": {"name": "\#(departmentName(p.department))"}}"#
            text += n == people.count - 1 ? "\n" : ",\n"
        }
        return text + "]\n"
    }
}

enum Models {
    /// The 10-attribute Person of workloads a, b, c, e, f and g.
    static func people() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person") {
                Attribute("id", .integer64)
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("email", .string)
                Attribute("age", .integer16, default: .int(0))
                Attribute("score", .double)
                Attribute("balance", .double)
                Attribute("city", .string)
                Attribute("createdAt", .date)
                Attribute("active", .boolean, default: .bool(true))
            }
        }
    }

    /// Workload d: Person unique by `personID` (read from `id`), with a
    /// to-one department unique by name.
    static func importing() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Department", userInfo: ["relatedByAttribute": "name"]) {
                Attribute("name", .string)
                ToMany("people", "Person", inverse: "department")
            }
            Entity("Person", userInfo: ["relatedByAttribute": "personID"]) {
                Attribute("personID", .integer64, userInfo: ["mappedKeyName": "id"])
                Attribute("firstName", .string, userInfo: ["mappedKeyName": "first_name"])
                Attribute("lastName", .string, userInfo: ["mappedKeyName": "last_name"])
                Attribute("email", .string)
                Attribute("age", .integer16, default: .int(0))
                Attribute("score", .double)
                Attribute("balance", .double)
                Attribute("city", .string)
                Attribute("createdAt", .date, userInfo: ["mappedKeyName": "created_at", "dateFormat": "UnixTime"])
                Attribute("active", .boolean, default: .bool(true))
                ToOne("department", "Department", inverse: "people")
            }
        }
    }
}
