import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// What `dicehost serve` does about HTTP clients that misbehave (slowloris, huge heads,
/// foreign pages opening the WebSocket), and the headers every response carries.
enum HTTPHygiene {
    /// The server: HTTP/1 with the WebSocket upgrade, behind a `RequestHeadGuard`.
    /// `connections` counts its TCP connections: past `limits.connections` a new one is
    /// answered 503 and closed at once (`CapacityRefusal`).
    static func server(webSocketRouter: Router<ServerRequestContext>, webSocket: WebSocketServerConfiguration, limits: ServerLimits,
                       connections: ConnectionGauge) -> HTTPServerBuilder {
        let responder = webSocketRouter.buildResponder()
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: .seconds(Int64(limits.requestHeadSeconds * 3)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxRequestHeadBytes, maxHeaderListSize: limits.maxRequestHeadBytes, maxHeaderFieldCount: 100))
        return HTTPServerBuilder { httpResponder in
            GuardedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: httpResponder, webSocketResponder: responder,
                                                               configuration: .init(http1: http1, ws: webSocket)),
                           deadline: .milliseconds(Int64(limits.requestHeadSeconds * 1000)), maxHeadBytes: limits.maxRequestHeadBytes,
                           connections: connections, capacity: limits.connections)
        }
    }

    /// A browser's WebSocket from a page of another origin is refused (403), unless the
    /// origin is allowed (`--allow-origin`). A client without `Origin`, or with a `ws:` one
    /// (not a browser), may connect.
    static func checkOrigin(of request: Request, allowed: [String]) throws {
        guard let origin = request.headers[.origin] else { return }
        // A browser's page has an http(s) origin; WebSocket client libraries send ws(s)://HOST.
        if origin.hasPrefix("ws://") || origin.hasPrefix("wss://") { return }
        if allowed.contains("*") || allowed.contains(origin) { return }
        if let host = request.head.authority, origin == "http://\(host)" || origin == "https://\(host)" { return }
        throw HTTPError(.forbidden, message: "a page from \(origin) may not open this server's WebSocket (dicehost serve --allow-origin \(origin) allows it)\n")
    }

    /// The page's scripts, styles and connections come from this server only; nothing is
    /// sniffed; no referrer leaves.
    struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var response: Response
            do { response = try await next(request, context) } catch let error as HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            response.headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            response.headers[.xContentTypeOptions] = "nosniff"
            if let referrerPolicy = HTTPField.Name("Referrer-Policy") { response.headers[referrerPolicy] = "no-referrer" }
            return response
        }
    }
}

/// An HTTP/1 child channel with a `RequestHeadGuard` in front.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let deadline: TimeAmount
    let maxHeadBytes: Int
    let connections: ConnectionGauge
    let capacity: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        let headGuard = RequestHeadGuard(deadline: deadline, maxHeadBytes: maxHeadBytes)
        do {
            // Every connection is an open file, page loads and upgrades in progress too: the
            // cap counts them all, so clients never use up the files the server needs.
            if connections.take(upTo: capacity) {
                let connections = self.connections
                channel.closeFuture.whenComplete { _ in connections.add(-1) }
                try channel.pipeline.syncOperations.addHandler(headGuard, position: .first)
            } else {
                try channel.pipeline.syncOperations.addHandler(CapacityRefusal(capacity: capacity), position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        // Behind the HTTP parser the inner setup puts in: its errors reach the guard.
        // The guard belongs to the channel's event loop, where the setup's future completes.
        let guardOnLoop = NIOLoopBound(headGuard, eventLoop: channel.eventLoop)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(MalformedHeadCatcher(headGuard: guardOnLoop.value), position: .last)
            return value
        }
    }

    func handle(value: Inner.Value, logger: Logger) async {
        // A connection answered 503 at the cap (`CapacityRefusal`) is closed under
        // Hummingbird's upgrade pipeline, which logs that as an error: not one an operator
        // should read per refusal (nor per client gone before it was served).
        if !value.channel.isActive {
            var quiet = logger
            quiet.logLevel = .critical
            return await inner.handle(value: value, logger: quiet)
        }
        await inner.handle(value: value, logger: logger)
    }
}

/// Answers a connection past the server's cap 503 at once and closes it, reading nothing.
/// Written here, before the HTTP parser, as Hummingbird answers a refused WebSocket upgrade
/// with a bare 400 whatever the refusal's status.
final class CapacityRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let capacity: Int
    private var sent = false

    init(capacity: Int) { self.capacity = capacity }

    func handlerAdded(context: ChannelHandlerContext) { if context.channel.isActive { refuse(context) } }
    func channelActive(context: ChannelHandlerContext) { refuse(context) }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let body = "this server holds \(capacity) connections, the most it takes; try again later\n"
        let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Retry-After: 5\r\nConnection: close\r\n\r\n" + body
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        context.close(promise: nil)
    }
}

/// Tells the `RequestHeadGuard` when the HTTP parser fails: Hummingbird's WebSocket
/// upgrade pipeline leaves a parse error of the first request unanswered (its upgrade
/// handler has no error handling and the HTTP handler is not there yet), so a garbage
/// request line (`GARBAGE`, `GET /` without a version) would wait for the 408.
final class MalformedHeadCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let headGuard: RequestHeadGuard

    init(headGuard: RequestHeadGuard) { self.headGuard = headGuard }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is HTTPParserError { headGuard.refuseMalformedHead() }
        context.fireErrorCaught(error)
    }
}

/// Closes a connection whose request head does not arrive whole in time (a silent
/// connection, a half-sent or trickled request: 408) or grows too big (a huge URL,
/// thousands of headers: 431). It reads the raw bytes before the HTTP parser, so it
/// holds for whatever the parser would wait for. Once the connection is a WebSocket (the
/// server's `101`; its liveness the WebSocket pings check) it checks one thing the
/// WebSocket layer does not: every client frame is masked (RFC 6455 5.1), else the
/// connection closes with 1002.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let deadline: TimeAmount
    private let maxHeadBytes: Int
    private var timer: Scheduled<Void>?
    /// Bytes of the head read so far (nil between requests), and the last three bytes read.
    private var headBytes: Int? = 0
    private var tail: [UInt8] = []
    private var upgraded = false
    private var refused = false
    /// A head has arrived and nothing was answered yet: the deadline still runs (a head
    /// the parser cannot read is answered 400 at once, see `MalformedHeadCatcher`).
    private var awaitingResponse = false
    /// Something was written back on this connection (an answer has begun).
    private var answered = false
    /// This handler's place in the pipeline, for `refuseMalformedHead` (the parser's error
    /// arrives at another handler, behind the parser).
    private var context: ChannelHandlerContext?
    /// After the upgrade: the frame header being read, and payload bytes still to skip.
    private var frameHeader: [UInt8] = []
    private var payloadLeft: UInt64 = 0

    init(deadline: TimeAmount, maxHeadBytes: Int) {
        self.deadline = deadline
        self.maxHeadBytes = maxHeadBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: deadline) {
            loopBound.value.handler.refuse(loopBound.value.context, status: "408 Request Timeout")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        if upgraded {
            guard framesAreMasked(buffer.readableBytesView) else {
                refused = true
                // A close frame, 1002 (protocol error), then the connection closes.
                context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: [0x88, 0x02, 0x03, 0xEA]))), promise: nil)
                context.close(promise: nil)
                return
            }
            return context.fireChannelRead(data)
        }
        if headBytes == nil, !awaitingResponse, buffer.readableBytes > 0 {
            headBytes = 0 // a new request on a kept-alive connection
            arm(context)
        }
        for byte in buffer.readableBytesView {
            guard var count = headBytes else { break }
            count += 1
            tail.append(byte)
            if tail.count > 4 { tail.removeFirst() }
            if tail == [13, 10, 13, 10] || tail.suffix(2) == [10, 10] {
                headBytes = nil
                tail = []
                awaitingResponse = true
            } else if count > maxHeadBytes {
                return refuse(context, status: "431 Request Header Fields Too Large")
            } else {
                headBytes = count
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !upgraded, !refused {
            // An answer: the request's deadline is met.
            timer?.cancel()
            timer = nil
            awaitingResponse = false
            answered = true
            if case .byteBuffer(let buffer) = unwrapOutboundIn(data), buffer.readableBytesView.starts(with: Array("HTTP/1.1 101".utf8)) {
                upgraded = true
            }
        }
        context.write(data, promise: promise)
    }

    /// Reads frame headers across reads (skipping payloads); false at an unmasked frame.
    private func framesAreMasked(_ bytes: ByteBufferView) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if payloadLeft > 0 {
                let skip = min(payloadLeft, UInt64(bytes.endIndex - index))
                index += Int(skip)
                payloadLeft -= skip
                continue
            }
            frameHeader.append(bytes[index])
            index += 1
            guard frameHeader.count >= 2 else { continue }
            guard frameHeader[1] & 0x80 != 0 else { return false }
            let length7 = frameHeader[1] & 0x7F
            let lengthBytes = length7 == 126 ? 2 : (length7 == 127 ? 8 : 0)
            guard frameHeader.count == 2 + lengthBytes + 4 else { continue }
            var length = UInt64(length7)
            if lengthBytes > 0 {
                length = frameHeader[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            payloadLeft = length
            frameHeader = []
        }
        return true
    }

    /// The HTTP parser could not read the request: 400 at once, not the deadline's 408.
    /// Only before the connection's first answer: a later request's parse error the
    /// HTTP handler answers itself (Hummingbird's `handleHTTP`), in order.
    func refuseMalformedHead() {
        guard let context, !answered else { return }
        refuse(context, status: "400 Bad Request")
    }

    private func refuse(_ context: ChannelHandlerContext, status: String) {
        guard !refused, !upgraded else { return }
        refused = true
        timer?.cancel()
        let text = "HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(string: text))), promise: nil)
        context.close(promise: nil)
    }
}
