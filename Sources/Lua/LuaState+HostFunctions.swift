import CLua
import CLuaSupport

/// A registered Swift function: its body and the state it belongs to. The state keeps
/// every one alive; Lua holds a plain pointer to it in the trampoline's upvalue.
final class HostFunction {
    unowned(unsafe) let state: LuaState
    let body: LuaFunctionBody
    /// Instruction-equivalents each call is charged: crossing into Swift and back costs
    /// about as much as this many VM instructions, and a loop of host calls must not
    /// run for long on a budget that counts only the loop's few instructions.
    let cost: Int64

    init(state: LuaState, cost: Int64, body: @escaping LuaFunctionBody) {
        self.state = state
        self.cost = cost
        self.body = body
    }

    /// Runs the body for the trampoline and returns its result count, or one of the
    /// CLUA_RAISE codes with the error value pushed. Never raises.
    @inline(__always)
    func run(on thread: OpaquePointer) -> Int32 {
        if cost > 0, clua_charge(thread, cost) != 0 { return CLUA_RAISE_BUDGET }
        do {
            return Int32(truncatingIfNeeded: try body(LuaCall(L: thread, state: state)))
        } catch let failure as LuaCall.Failure {
            switch failure {
            case .argument(let n, let message):
                state.pushString(message, on: thread)
                return CLUA_RAISE_ARG - Int32(n)
            case .message(let message):
                state.pushString(message, on: thread)
                return CLUA_RAISE_WHERE
            case .value(let value):
                state.push(value, on: thread)
                return CLUA_RAISE
            }
        } catch let error as LuaError where state.budgetSpent && [.instructionBudget, .interrupted].contains(error.kind) {
            return CLUA_RAISE_BUDGET // raised as the hook raises it, at the script's line
        } catch let error as LuaError {
            state.pushString(error.description, on: thread)
            return CLUA_RAISE
        } catch {
            state.pushString(String(describing: error), on: thread)
            return CLUA_RAISE_WHERE
        }
    }
}

extension LuaState {
    /// What a call of a host function costs by default, in instruction-equivalents.
    public static let hostCallCost = 50

    /// A Lua function value that runs `body`. Lua's error messages name it by the
    /// field or variable it is called through, as for Lua's own functions. Keep the
    /// closure free of strong references to this state's owner (use `[unowned self]`).
    /// Each call is charged `cost` to the budget (0 for the host's own plumbing).
    public func function(cost: Int = LuaState.hostCallCost, _ body: @escaping LuaFunctionBody) -> LuaValue {
        let function = HostFunction(state: self, cost: Int64(clamping: cost), body: body)
        hostFunctions.append(function)
        clua_push_host_function(L, Unmanaged.passUnretained(function).toOpaque())
        defer { clua_pop(L, 1) }
        return .function(makeRef(at: -1))
    }

    /// Sets `table[name]` to a Swift function.
    public func register(_ name: String, in table: LuaRef, _ body: @escaping LuaFunctionBody) {
        set(table, .string(name), function(body))
    }

    /// Registers a library: one table of functions under `name` in the sandbox globals,
    /// returned so constants can be added to it.
    @discardableResult
    public func register(library name: String, _ functions: [(String, LuaFunctionBody)]) -> LuaRef {
        let table = newTable()
        for (functionName, body) in functions { register(functionName, in: table, body) }
        set(globals, .string(name), .table(table))
        return table
    }
}
