import Foundation
import Lua

/// Loads a script in the sandbox and runs it once: the foundation of `dicehost check`.
public enum ScriptCheck {
    public static func check(path: String) throws -> String {
        let lua = try LuaState()
        lua.moduleDirectory = (path as NSString).deletingLastPathComponent
        var printed: [String] = []
        lua.output = { printed.append($0) }
        let results = try lua.call(.function(lua.load(file: path)))
        return (printed + ["\(path): ok (returns \(results.map(\.typeName).joined(separator: ", ")))"]).joined(separator: "\n")
    }
}
