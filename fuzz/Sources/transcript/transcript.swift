// Fuzzes the transcript parser: `Transcript(text:path:)`, then its `.text`, which must
// parse again to the same transcript and print the same text (a fixed point), and the
// rules path it resolves.
import DiceHost
import FuzzSupport

func same(_ a: Transcript, _ b: Transcript) -> Bool {
    a.header == b.header && a.rules == b.rules && a.players == b.players && a.seed == b.seed
        && a.overrides.map { [$0.0, $0.1] } == b.overrides.map { [$0.0, $0.1] }
        && a.startExpected == b.startExpected && a.trailingComments == b.trailingComments
        && a.steps.map(\.comments) == b.steps.map(\.comments) && a.steps.map(\.input) == b.steps.map(\.input)
        && a.steps.map(\.expected) == b.steps.map(\.expected)
}

/// The fields, escaped (a fatalError message ends at the first NUL).
func describe(_ t: Transcript) -> String {
    [String(reflecting: t.header), String(reflecting: t.startExpected), String(reflecting: t.trailingComments)]
        .joined(separator: "\n") + "\n" + t.steps.map { String(reflecting: ($0.comments, $0.input, $0.expected)) }.joined(separator: "\n")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let path = size % 2 == 0 ? "rules/tests/race/fuzz.txt" : "/abs/dir/../fuzz.txt"
    guard let transcript = try? Transcript(text: text, path: path) else { return 0 }
    fuzzCheck(!transcript.rules.isEmpty && !transcript.players.isEmpty, "parsed without rules or players")
    _ = transcript.rulesPath
    _ = Transcript.relativePath(transcript.rulesPath, from: path)
    let printed = transcript.text
    let again: Transcript
    do { again = try Transcript(text: printed, path: path) } catch {
        fuzzCheck(false, "the printed transcript does not parse: \(error)\n\(String(reflecting: printed))")
        return 0
    }
    fuzzCheck(same(transcript, again), "the printed transcript parses differently:\n\(describe(transcript))\n--- parsed again\n\(describe(again))")
    fuzzCheck(again.text == printed, "printing is not a fixed point:\n\(String(reflecting: printed))\n\(String(reflecting: again.text))")
    return 0
}
