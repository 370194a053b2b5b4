-- random-game.lua without unordered_dice: odds plays every order of a roll's values.
return rules.extend(require "random-game", { name = "Random game (ordered)", unordered_dice = false })
