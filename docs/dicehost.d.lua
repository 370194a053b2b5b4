---@meta
-- Type stubs of the DiceHost scripting API for lua-language-server.

---@class Player
---@field name string
---@field seat integer
---@field eliminated boolean
---@field last_roll Roll|nil

--- A roll table is the host's: two per player, reused in turn (a kept roll is
--- overwritten two rolls later). Keep numbers, not rolls; see "Fast rules".
---@class Roll
---@field values integer[]
---@field value integer
---@field total integer
---@field flag "ok"|"tilt"|"too_short"
---@field ok boolean
---@field doubles boolean
---@field previous Roll|nil

---@class Game
---@field players Player[]
---@field current Player
---@field state table
---@field params table
---@field now integer
local Game = {}
---@param fmt string
function Game:say(fmt, ...) end
---@param name string
---@param data any
function Game:emit(name, data) end
---@param p Player|nil
function Game:next_turn(p) end
---@param p Player
function Game:win(p) end
---@param p Player
function Game:lose(p) end
function Game:draw() end
---@param p Player
function Game:eliminate(p) end
---@param metric string
---@param value number a finite number (NaN and infinities are errors)
function Game:record(metric, value) end
---@param name string
---@return Player|nil
function Game:player(name) end
---@return boolean
function Game:is_over() end

---@class RuleTable
---@field name string
---@field players integer[]|integer
---@field dice string
---@field params table
---@field actions table<string, fun(g: Game, p: Player, ...: any)>
---@field setup fun(g: Game)|nil
---@field turn fun(g: Game, p: Player)|nil
---@field roll fun(g: Game, p: Player, r: Roll)
---@field bot fun(g: Game, p: Player): string|table|nil
---@field migrate fun(g: Game)|nil
---@field status fun(g: Game): string|nil

---@class Rules
---@overload fun(declaration: table): RuleTable
rules = {}
---@param base RuleTable
---@param changes table
---@return RuleTable
function rules.extend(base, changes) end

dice = {}
---@param notation string NdS with N 1..100, S 2..1000, e.g. "2d6", "4d6kh3", "1d6!+2"
---@return Roll
function dice.roll(notation) end
---@param n integer
---@return string
function dice.glyph(n) end

---@alias Colour string|integer[]
led = {}
led.ALL = 63
---@param n integer
---@return integer
function led.face(n) end
---@return integer
function led.faces(...) end
---@param mask integer
---@param colour Colour
function led.set(mask, colour) end
---@param mask integer|nil
function led.off(mask) end
---@param mask integer
---@param colour Colour
---@param options {on: integer?, cycle: integer?, count: integer?, priority: integer?}|nil on, cycle: 0..60000 ms; count: 1..10000; priority: 0..100
function led.blink(mask, colour, options) end
---@param mask integer
---@param colour Colour
---@param ms integer|nil 0..60000 ms (default 500)
function led.fade(mask, colour, ms) end

---@class TimerHandle
local TimerHandle = {}
function TimerHandle:cancel() end

timer = {}
---@param ms integer 0..86400000 (24 h of game time); at most 1000 timers pending
---@param fn fun(g: Game)
---@return TimerHandle
function timer.after(ms, fn) end
---@param ms integer 1..86400000 (24 h of game time); at most 1000 timers pending
---@param fn fun(g: Game)
---@return TimerHandle
function timer.every(ms, fn) end

---@class Card
---@field rank integer
---@field suit string

cards = {}
---@return Card[]
function cards.deck() end
---@generic T
---@param t T[]
---@return T[]
function cards.shuffle(t) end
