import Lua

extension Game {
    /// The rules' one-line summary for a prompt or status bar, from the optional
    /// `status(g)` hook (Craps: the point and each balance); nil without the hook.
    /// It runs under the budget and changes nothing: whatever the hook writes is put back
    /// (see `leavingUnchanged`). A failing hook reads as its error.
    public func statusLine() -> String? {
        let hook = hooks.status
        guard case .function = hook else { return nil }
        return leavingUnchanged(restoringLua: true) { () -> String? in
            if transactional { _ = try? currentSnapshot() }
            return statusText(hook)
        }
    }

    private func statusText(_ hook: LuaValue) -> String? {
        do {
            let result = try lua.call(hook, [.table(g)])
            switch result.first {
            case .string(let text)?: return text
            case nil, .nil?: return nil
            case let other?: return other.description
            }
        } catch {
            return "status: \(error)"
        }
    }
}
