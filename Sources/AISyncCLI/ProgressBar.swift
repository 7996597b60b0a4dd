import AISync
import Synchronization

/// The one progress line on a terminal's stderr: what is moving, a bar, done/total,
/// bytes, rate and time left, redrawn in place at most ten times a second, shortened to the
/// terminal's width. Nothing at all unless ``CLIPlatform/showsProgress``.
final class ProgressBar: Sendable {
    private struct State {
        var label = ""
        var start: UInt64 = 0
        var lastDraw: UInt64 = 0
        var drawn = false
    }
    private let state = Mutex(State())
    let enabled: Bool

    init(enabled: Bool = CLIPlatform.showsProgress) { self.enabled = enabled }

    /// Shows a sync's progress.
    func update(_ p: SyncProgress) {
        draw(
            label: p.label.prefix(1).uppercased() + p.label.dropFirst(), fraction: p.fraction,
            counter: "\(p.done)/\(p.total)",
            bytes: p.bytes, totalBytes: p.totalBytes, finished: p.done >= p.total)
    }

    /// Draws one state of a phase named `label`; a new label starts its clock again.
    func draw(label: String, fraction: Double, counter: String, bytes: Int64, totalBytes: Int64, finished: Bool) {
        guard enabled else { return }
        let now = CLIPlatform.monotonicNanoseconds()
        let line: String? = state.withLock { s in
            if s.label != label { s = State(label: label, start: now, lastDraw: 0, drawn: false) }
            guard !s.drawn || finished || now - s.lastDraw >= 100_000_000 else { return nil }
            s.lastDraw = now
            s.drawn = true
            let elapsed = Double(now - s.start) / 1e9
            return Self.line(
                label: label, fraction: fraction, counter: counter, bytes: bytes, totalBytes: totalBytes,
                elapsed: elapsed, width: CLIPlatform.columns(2))
        }
        if let line { CLIPlatform.progress(line) }
    }

    /// Clears the line before the command prints its result; true when there was one.
    @discardableResult
    func clear() -> Bool {
        guard enabled else { return false }
        let drawn = state.withLock { s in
            defer { s = State() }
            return s.drawn
        }
        if drawn { CLIPlatform.clearProgress() }
        return drawn
    }

    /// `Pushing versions [=======>      ] 1200/2000 · 3.1 MB/5.2 MB · 2.4 MB/s · 2 s left`,
    /// dropping the last parts that do not fit in `width - 1` columns.
    static func line(
        label: String, fraction: Double, counter: String, bytes: Int64, totalBytes: Int64,
        elapsed: Double, width: Int
    ) -> String {
        let cells = 20
        let filled = Int((fraction * Double(cells)).rounded(.down))
        let bar =
            "[" + String(repeating: "=", count: filled)
            + (filled < cells ? ">" + String(repeating: " ", count: cells - filled - 1) : "") + "]"
        // A narrow terminal keeps the numbers and drops the bar.
        var parts = [
            DisplayWidth.of(label) + cells + 4 + counter.count < width
                ? "\(label) \(bar) \(counter)" : "\(label) \(counter)"
        ]
        if totalBytes > 0 {
            parts.append("\(Output.bytes(bytes))/\(Output.bytes(totalBytes))")
        } else if bytes > 0 {
            parts.append(Output.bytes(bytes))
        }
        if elapsed >= 0.5, fraction > 0, fraction < 1 {
            if bytes > 0 { parts.append("\(Output.bytes(Int64(Double(bytes) / elapsed)))/s") }
            let left = elapsed * (1 - fraction) / fraction
            parts.append(left < 60 ? "\(Int(left.rounded(.up))) s left" : "\(Int((left / 60).rounded(.up))) min left")
        }
        var text = parts[0]
        for part in parts.dropFirst() {
            guard DisplayWidth.of(text) + 3 + DisplayWidth.of(part) < width else { break }
            text += " · " + part
        }
        return DisplayWidth.of(text) < width ? text : DisplayWidth.truncated(text, to: width - 1)
    }
}
