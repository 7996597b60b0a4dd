import Testing

@testable import AISyncCore

/// A version changes each register and each element at most once: a second change of the
/// same one is refused, named, whether the version carries a few operations (compared one
/// with another) or many (a set).
@Suite("A version changes each field or element once")
struct ChangedOnceTests {
    static func title(_ t: String) -> Operation { .set(field: "title", value: .inline(.string(t))) }
    static func message(_ id: String, edit: Bool = false) -> Operation {
        let value = FieldValue.inline(.object(["role": .string("user"), "text": .string(id)]))
        return edit
            ? .edit(field: "messages", element: id, value: value) : .add(field: "messages", element: id, value: value)
    }

    static func refusal(_ ops: [Operation]) -> String? {
        do {
            try Version.checkChangedOnce(ops)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("Distinct changes pass; a second change of one is refused and named", arguments: [3, 15, 16, 17, 40])
    func secondChangeRefused(count: Int) {
        var ops = [Self.title("a"), .set(field: "favorite", value: .inline(.bool(true)))]
        ops += (0..<(count - 2)).map { Self.message("m\($0)") }
        #expect(Self.refusal(ops) == nil)
        #expect(Self.refusal(ops + [Self.title("b")])?.contains("\"title\" twice") == true)
        #expect(Self.refusal(ops + [Self.message("m0", edit: true)])?.contains("\"messages/m0\" twice") == true)
        // The same element id in another field is another element.
        #expect(Self.refusal(ops + [.add(field: "pages", element: "m0", value: .inline(.null))]) == nil)
    }
}
