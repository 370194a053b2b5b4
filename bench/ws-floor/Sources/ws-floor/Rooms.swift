import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// The rooms of the floor server: connections grouped by the `room` of their URL
/// (`/ws?room=NAME`), four to a room as DiceHost's Snap rooms. Nothing else is kept: no
/// game, no log, no store. Shared by every event loop and task, so behind one lock.
final class Rooms: Sendable {
    struct Member: Sendable {
        let id: UInt64
        let channel: any Channel
    }

    private let rooms = NIOLockedValueBox<[String: [Member]]>([:])
    private let nextID = NIOLockedValueBox<UInt64>(0)

    /// Adds `channel` to `room`; the id to leave with.
    func join(_ room: String, channel: any Channel) -> UInt64 {
        let id = nextID.withLockedValue { id in
            id += 1
            return id
        }
        rooms.withLockedValue { $0[room, default: []].append(Member(id: id, channel: channel)) }
        return id
    }

    func leave(_ room: String, id: UInt64) {
        rooms.withLockedValue { rooms in
            rooms[room]?.removeAll { $0.id == id }
            if rooms[room]?.isEmpty == true { rooms[room] = nil }
        }
    }

    func members(of room: String) -> [Member] {
        rooms.withLockedValue { $0[room] ?? [] }
    }
}

/// The one answer to each input: a text frame of `bytes` bytes (DiceHost's Snap `events`
/// message is about that size) that names the input it answers, so that the client can
/// time input → last frame; written to each connection of the room.
struct Broadcast {
    let bytes: Int

    /// `{"type":"events","cause":INPUT,"pad":"xxx…"}`, padded to `bytes` (never shorter
    /// than the input needs). The input is the client's own JSON, echoed as it came.
    func frame(answering input: String) -> WebSocketFrame {
        let head = #"{"type":"events","cause":"#, middle = #","pad":""#, tail = #""}"#
        let fixed = head.utf8.count + input.utf8.count + middle.utf8.count + tail.utf8.count
        var buffer = ByteBufferAllocator().buffer(capacity: max(bytes, fixed))
        buffer.writeString(head)
        buffer.writeString(input)
        buffer.writeString(middle)
        buffer.writeRepeatingByte(UInt8(ascii: "x"), count: max(0, bytes - fixed))
        buffer.writeString(tail)
        return WebSocketFrame(fin: true, opcode: .text, data: buffer)
    }

    /// Writes `frame` to every member: as DiceHost's `OutboundBatch`, one hop per event loop
    /// for all of its connections, each flushed once; a member on the caller's own event loop
    /// is written at once (a NIO handler's room mates on its loop need no hop).
    static func send(_ frame: WebSocketFrame, to members: [Rooms.Member]) {
        var loops: [(loop: any EventLoop, channels: [any Channel])] = []
        for member in members {
            let loop = member.channel.eventLoop
            if let index = loops.firstIndex(where: { $0.loop === loop }) {
                loops[index].channels.append(member.channel)
            } else {
                loops.append((loop, [member.channel]))
            }
        }
        for (loop, channels) in loops {
            if loop.inEventLoop {
                write(frame, to: channels)
            } else {
                loop.execute { write(frame, to: channels) }
            }
        }
    }

    private static func write(_ frame: WebSocketFrame, to channels: [any Channel]) {
        for channel in channels { channel.write(frame, promise: nil) }
        for channel in channels { channel.flush() }
    }
}
