// Fuzzes `dicehost serve` from outside, as a client would: a real server (the repository's
// rules, small limits) runs in this process on a loopback port for the whole run, and each
// input is sent to it over a fresh TCP connection. The first byte picks how:
// - even: the rest is an HTTP request head (and whatever follows it), sent raw;
// - odd: a WebSocket is opened and the rest, split at each 0x00 byte, is sent as text
//   messages (bytes as they are: invalid UTF-8 too), every third one in two fragments.
// Invariants checked after every input:
// - the server did not trap (a trap stops the fuzzer: it runs in this process);
// - every reply is one JSON object with a "type" (or the connection was closed);
// - the server still answers: a new connection's hello and ping get hello and pong.
import DiceHostServer
import Foundation
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

final class Harness: @unchecked Sendable {
    let port: Int

    init() {
        let rules = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules").path
        var limits = ServerLimits()
        limits.requestHeadSeconds = 0.5
        limits.messagesPerSecond = 10_000
        limits.messageBurst = 10_000
        var configuration = DiceHostServer.Configuration(rulesDirectory: rules, port: 0, limits: limits)
        configuration.logLevel = "critical"
        let found = DispatchSemaphore(value: 0)
        let box = PortBox()
        do {
            let server = try DiceHostServer(configuration: configuration)
            Task.detached {
                try? await server.run { port in box.port = port; found.signal() }
            }
        } catch {
            fatalError("the server does not start: \(error)")
        }
        found.wait()
        port = box.port
    }
}

final class PortBox: @unchecked Sendable { var port = 0 }

/// A blocking TCP connection with a short receive timeout.
final class Connection {
    let fd: Int32

    init?(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); return nil }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// What arrives until `done`, the connection closes, or a read times out.
    func read(until done: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !done(out) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    func upgrade(port: Int) -> Bool {
        send(Array(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        let head = read { bytes in bytes.count >= 4 && bytes.suffix(4) == [13, 10, 13, 10] }
        return head.starts(with: Array("HTTP/1.1 101".utf8))
    }

    func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true) {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += key
        frame += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        send(frame)
    }

    /// The server's frames in `bytes`: (opcode, payload).
    static func frames(_ bytes: [UInt8]) -> [(UInt8, [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 0
        while i + 2 <= bytes.count {
            let opcode = bytes[i] & 0x0F
            var length = Int(bytes[i + 1] & 0x7F)
            var start = i + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { break }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2
            } else if length == 127 {
                guard start + 8 <= bytes.count else { break }
                length = bytes[start..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }; start += 8
            }
            guard start + length <= bytes.count else { break }
            out.append((opcode, Array(bytes[start..<(start + length)])))
            i = start + length
        }
        return out
    }
}

nonisolated(unsafe) let harness = Harness()

/// Every text frame the server sent is one JSON object with a "type".
func checkReplies(_ bytes: [UInt8], after input: String) {
    for (opcode, payload) in Connection.frames(bytes) where opcode == 1 {
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        fuzzCheck(object?["type"] is String, "a reply that is not a JSON object with a type: \(String(decoding: payload, as: UTF8.self).prefix(200)) (after \(input.prefix(200)))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let rest = Array(input.bytes.dropFirst())
    guard let connection = Connection(port: harness.port) else { fuzzCheck(false, "the server takes no connection"); return 0 }
    if mode & 1 == 0 {
        connection.send(rest)
        _ = connection.read()
    } else if connection.upgrade(port: harness.port) {
        let messages = rest.split(separator: 0, omittingEmptySubsequences: false).prefix(32)
        for (index, message) in messages.enumerated() {
            let bytes = Array(message)
            if index % 3 == 2, bytes.count > 1 {
                connection.frame(opcode: 1, Array(bytes[..<(bytes.count / 2)]), fin: false)
                connection.frame(opcode: 0, Array(bytes[(bytes.count / 2)...]))
            } else {
                connection.frame(opcode: 1, bytes)
            }
        }
        checkReplies(connection.read(), after: String(decoding: rest, as: UTF8.self))
    }
    // The server still answers.
    guard let probe = Connection(port: harness.port), probe.upgrade(port: harness.port) else {
        fuzzCheck(false, "the server stopped accepting WebSockets after: \(String(decoding: rest, as: UTF8.self).prefix(300))")
        return 0
    }
    probe.frame(opcode: 1, Array("{\"type\":\"hello\",\"version\":1}".utf8))
    probe.frame(opcode: 1, Array("{\"type\":\"ping\",\"id\":7}".utf8))
    let answer = probe.read { bytes in Connection.frames(bytes).contains { $0.0 == 1 && String(decoding: $0.1, as: UTF8.self).contains("\"pong\"") } }
    fuzzCheck(Connection.frames(answer).contains { $0.0 == 1 && String(decoding: $0.1, as: UTF8.self).contains("\"pong\"") },
              "the server stopped answering a ping after: \(String(decoding: rest, as: UTF8.self).prefix(300))")
    return 0
}
