import AISyncTestSupport
import Testing

@testable import AISyncCore

/// A pull checks every chat message it reads; a plain one (role, text, time, maybe reasoning)
/// is checked without making the message (`ChatBody.Message.isPlain`). It must never accept
/// what the message's initializer refuses, and must take the messages aisync writes.
@Suite("Checking a pulled message")
struct MessageCheckTests {
    /// For each member: what it may hold (nil: left out), mostly valid.
    static let choices: [(String, [JSONValue?])] = [
        ("role", [.string("user"), .string("assistant"), .string("system"), .string("robot"), .int(1), nil]),
        ("text", [.string("hello"), .string(""), .string("é 🐉"), .null, .int(3), nil]),
        (
            "time",
            [
                .string("2023-11-14T09:30:00.000Z"), .string("2023-11-14T09:30:00Z"),
                .string("2023-11-14T25:30:00.000Z"), .string("soon"), .null, nil,
            ]
        ),
        ("reasoning", [nil, nil, nil, .string("thinking"), .null, .bool(true)]),
        ("branch", [nil, nil, nil, nil, .object(["after": .string("m-1")]), .string("m-1")]),
        ("extra", [nil, nil, nil, nil, nil, .string("x")]),
    ]

    @Test("A message taken by the quick check is one the initializer takes; aisync's own are all taken")
    func quickCheckTakesOnlyWhatTheInitializerTakes() throws {
        var rng = SeededGenerator(seed: 3107)
        var quick = 0
        var both = 0
        for _ in 0..<40_000 {
            var o: JSONObject = [:]
            for (key, values) in Self.choices {
                if let v = values.randomElement(using: &rng)! { o[key] = v }
            }
            let value = JSONValue.object(o)
            let accepted = (try? ChatBody.Message(elementID: "m-1", json: value)) != nil
            if ChatBody.Message.isPlain(value) {
                quick += 1
                #expect(accepted, "\(value)")
            }
            if accepted { both += 1 }
        }
        #expect(quick > 200 && both > quick, "\(quick) \(both)")
        for role in ChatBody.Role.allCases {
            for reasoning in [nil, "thinking"] {
                let message = ChatBody.Message(
                    id: "m-1", role: role, text: "hi", time: Timestamp(milliseconds: 1_700_000_000_000),
                    reasoning: reasoning)
                #expect(ChatBody.Message.isPlain(message.elementJSON), "\(message.elementJSON)")
            }
        }
    }
}
