import DiceHost
import Testing

/// A transcript's `set:` header: one param per line, or several separated by commas.
@Suite struct TranscriptSetHeaderTests {
    func overrides(_ header: String) throws -> [String] {
        let transcript = try Transcript(text: "rules: ../liars-dice.lua\nplayers: Ann, Bob\n\(header)\n\nstart\n", path: "t.txt")
        return transcript.overrides.map { "\($0.0)=\($0.1)" }
    }

    @Test func severalParamsOnOneLineAreSeveralOverrides() throws {
        #expect(try overrides("set: start_dice=1, calza=false") == ["start_dice=1", "calza=false"])
        #expect(try overrides("set: start_dice=1,calza=false,  bluff=0") == ["start_dice=1", "calza=false", "bluff=0"])
    }

    @Test func oneParamPerLineStillWorks() throws {
        #expect(try overrides("set: start_dice=1\nset: calza=false") == ["start_dice=1", "calza=false"])
    }

    @Test func aValueMayHoldCommasNotFollowedByAName() throws {
        #expect(try overrides("set: names=Ann,Bob") == ["names=Ann,Bob"])
        #expect(try overrides("set: greeting=hi, there") == ["greeting=hi, there"])
        #expect(try overrides("set: list=1,2,3, calza=false") == ["list=1,2,3", "calza=false"])
    }

    @Test func aPieceWithoutAKeyIsAnErrorAtItsLine() {
        #expect {
            _ = try overrides("set: =2")
        } throws: { error in
            "\(error)" == "t.txt:3: set expects key=value (or several: set: a=1, b=false), got '=2'"
        }
        #expect { _ = try overrides("set: calza") } throws: { "\($0)".hasSuffix("got 'calza'") }
    }
}
