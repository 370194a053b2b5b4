import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to the test server, for what a well-behaved client library
/// will not send: half requests, huge heads, unmasked or fragmented WebSocket frames,
/// invalid UTF-8, a reader that stops reading. Blocking calls run on Dispatch's threads,
/// not on the cooperative pool the server in this process shares.
final class RawSocket: @unchecked Sendable {
    let fd: Int32

    init(port: Int, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw TestFailure("connect() failed") }
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

    func send(_ text: String) { send(Array(text.utf8)) }

    /// What arrives until the server closes the connection or `timeout` passes.
    func readUntilClosed(timeout: Duration) async -> (bytes: [UInt8], closed: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.blockingRead(timeout: timeout, until: { _ in false }))
            }
        }
    }

    /// What arrives until `done` says enough, the connection closes, or `timeout` passes.
    func read(timeout: Duration, until done: @escaping @Sendable ([UInt8]) -> Bool) async -> (bytes: [UInt8], closed: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.blockingRead(timeout: timeout, until: done)) }
        }
    }

    private func blockingRead(timeout: Duration, until done: ([UInt8]) -> Bool) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let ms = Int32(max(1, min(1000, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            guard poll(&poller, 1, ms) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (out, true) }
            out += buffer[0..<n]
            if done(out) { return (out, false) }
        }
        return (out, false)
    }

    // MARK: WebSocket

    /// Sends the upgrade request; the server's answer head (e.g. "HTTP/1.1 101 …").
    func upgrade(port: Int, origin: String? = nil) async -> String {
        var request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        send(request + "\r\n")
        let (bytes, _) = await read(timeout: .seconds(10)) { bytes in
            bytes.count >= 4 && (0...(bytes.count - 4)).contains { bytes[$0..<($0 + 4)] == [13, 10, 13, 10] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One client frame (masked unless told otherwise).
    func sendFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            frame += key
            frame += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        } else {
            frame += payload
        }
        send(frame)
    }

    func sendText(_ text: String) { sendFrame(opcode: 1, Array(text.utf8)) }

    /// Server frames in `bytes` (after the HTTP head): (opcode, payload) each.
    static func frames(in bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
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

    /// The close code of the server's close frame among `bytes`, if it sent one.
    static func closeCode(in bytes: [UInt8]) -> Int? {
        guard let close = frames(in: bytes).first(where: { $0.opcode == 8 }), close.payload.count >= 2 else { return nil }
        return Int(close.payload[0]) << 8 | Int(close.payload[1])
    }
}
