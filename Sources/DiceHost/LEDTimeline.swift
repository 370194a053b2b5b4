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

    /// The colour of `face` (1…6) at time `t` (ms).
    public func color(face: Int, at t: Int) -> LEDColor {
        guard (1...6).contains(face) else { return .off }
        let entries = faces[face - 1]
        guard let index = entries.lastIndex(where: { $0.start <= t }) else { return .off }
        let entry = entries[index]
        let previous = index > 0 ? entries[index - 1].command.color(after: entry.start - entries[index - 1].start, from: .off) : .off
        return entry.command.color(after: t - entry.start, from: previous)
    }

    /// All six faces at time `t`.
    public func colors(at t: Int) -> [LEDColor] { (1...6).map { color(face: $0, at: t) } }
}
