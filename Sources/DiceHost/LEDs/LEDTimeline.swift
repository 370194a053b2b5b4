/// What each face of the die shows over the game clock. A command applies to the
/// faces in its mask, except faces still running an animation of higher priority.
public struct LEDTimeline: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var start: Int
        var command: LEDCommand
    }

    /// Per face (index 0 = face 1), the commands that took effect, oldest first.
    private var faces: [[Entry]] = Array(repeating: [], count: 6)

    public init() {}

    /// Applies a command at time `now` (ms); returns the faces it took.
    @discardableResult
    public mutating func apply(_ command: LEDCommand, at now: Int) -> LEDMask {
        var taken = 0
        for face in command.mask.faces {
            if let running = faces[face - 1].last, let duration = running.command.duration,
               now < running.start.saturatingAdded(duration), running.command.priority > command.priority {
                continue
            }
            faces[face - 1].append(Entry(start: now, command: command))
            if faces[face - 1].count > 64 { faces[face - 1].removeFirst(32) } // history is for queries near now
            taken |= 1 << (face - 1)
        }
        return LEDMask(rawValue: taken)
    }

    /// The colour of `face` (1…6) at time `t` (ms). A blink lights its colour and goes
    /// dark in turn; when it has finished the face shows again the steady colour it had
    /// before the blink (the last `set`, `off`, or a fade's end colour).
    public func color(face: Int, at t: Int) -> LEDColor {
        guard (1...6).contains(face) else { return .off }
        let entries = faces[face - 1]
        guard let index = entries.lastIndex(where: { $0.start <= t }) else { return .off }
        return color(of: entries, at: index, elapsed: t - entries[index].start)
    }

    /// The colour entry `index` shows `elapsed` ms after it started.
    private func color(of entries: [Entry], at index: Int, elapsed: Int) -> LEDColor {
        let entry = entries[index]
        switch entry.command.kind {
        case .blink(let on, let cycle, _):
            let period = LEDCommand.period(on: on, cycle: cycle)
            let running = period > 0 && elapsed < (entry.command.duration ?? 0)
            if running { return elapsed % period < on ? entry.command.color : .off }
            return steadyColor(of: entries, before: index)
        case .fade:
            let from = index > 0 ? color(of: entries, at: index - 1, elapsed: entry.start - entries[index - 1].start) : .off
            return entry.command.color(after: elapsed, from: from)
        case .set, .off:
            return entry.command.color(after: elapsed, from: .off)
        }
    }

    /// The colour a face rests at under the commands before `index`: the last `set`,
    /// `off` or fade (blinks only pass over it).
    private func steadyColor(of entries: [Entry], before index: Int) -> LEDColor {
        for earlier in entries[..<index].reversed() {
            switch earlier.command.kind {
            case .blink: continue
            case .off: return .off
            case .set, .fade: return earlier.command.color
            }
        }
        return .off
    }

    /// All six faces at time `t`.
    public func colors(at t: Int) -> [LEDColor] { (1...6).map { color(face: $0, at: t) } }
}
