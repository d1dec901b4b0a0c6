// `ColumnarTestWorker realm-write PATH`: writes RealmSwift-style model objects through the object API, so a test
// can check that data written by one process is read back by a fresh one; `realm-self-assign PATH` sets every
// Dog's age to the value it holds, in one write. The model classes match those of Tests/ColumnarTests/Models.swift
// (same names and properties).

import Columnar
import Foundation

final class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

final class Person: Object {
    @Persisted var name: String
    @Persisted var picture: Data?
    @Persisted var dogs: List<Dog>
}

func realmWrite(path: String) throws {
    let realm = try Realm(fileURL: URL(fileURLWithPath: path))
    let person = Person()
    person.name = "Jane"
    person.picture = Data([1, 2, 3])
    for (name, age) in [("Rex", 1), ("Fido", 3), ("Spot", 5)] {
        let dog = Dog()
        dog.name = name
        dog.age = age
        person.dogs.append(dog)
    }
    try realm.write {
        realm.add(person)
    }
}

func realmSelfAssign(path: String) throws {
    let realm = try Realm(fileURL: URL(fileURLWithPath: path))
    try realm.write {
        for dog in realm.objects(Dog.self) { dog.age = dog.age }
    }
}
