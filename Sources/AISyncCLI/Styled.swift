/// Human output with colours: runs of text, some painted. Written with string interpolation,
/// `"\(role, .cyan) \(text)"`, and rendered once for its stream: every run is escaped
/// (``TerminalText``), so a title can never bring its own escape sequences, and colour codes
/// are added only when that stream is a colour terminal (``CLIPlatform/colours(_:)``).
struct Styled: ExpressibleByStringInterpolation, Sendable {
    /// The colours aisync uses, as SGR parameters: roles, conflicts, errors and faint detail.
    enum Paint: String, Sendable {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case bold = "1"
        case faint = "2"
        case boldRed = "1;31"
    }

    private(set) var runs: [(text: String, paint: Paint?)] = []

    init(stringLiteral value: String) { runs = [(value, nil)] }
    init(_ text: String, _ paint: Paint? = nil) { runs = [(text, paint)] }
    init(stringInterpolation: Interpolation) { runs = stringInterpolation.runs }

    struct Interpolation: StringInterpolationProtocol {
        var runs: [(text: String, paint: Paint?)] = []
        init(literalCapacity: Int, interpolationCount: Int) { runs.reserveCapacity(interpolationCount * 2 + 1) }
        mutating func appendLiteral(_ literal: String) { if !literal.isEmpty { runs.append((literal, nil)) } }
        mutating func appendInterpolation<T>(_ value: T) { runs.append(("\(value)", nil)) }
        mutating func appendInterpolation<T>(_ value: T, _ paint: Paint?) { runs.append(("\(value)", paint)) }
        mutating func appendInterpolation(_ styled: Styled) { runs += styled.runs }
    }

    /// The text without colours (what a pipe gets, and what tests compare).
    var plain: String { runs.map(\.text).joined() }

    /// The escaped text, with colour codes when `colour` is true.
    func rendered(colour: Bool) -> String {
        var out = ""
        for run in runs {
            let text = TerminalText.escaped(run.text)
            if colour, let paint = run.paint, !text.isEmpty {
                out += "\u{1B}[\(paint.rawValue)m" + text + "\u{1B}[0m"
            } else {
                out += text
            }
        }
        return out
    }

    static func + (a: Styled, b: Styled) -> Styled {
        var c = a
        c.runs += b.runs
        return c
    }
    static func += (a: inout Styled, b: Styled) { a.runs += b.runs }
}

extension Array where Element == Styled {
    func joined(separator: String = "") -> Styled {
        var out = Styled("")
        for (n, part) in enumerated() {
            if n > 0, !separator.isEmpty { out += Styled(separator) }
            out += part
        }
        return out
    }
}
