-- Messages to the user, one screen line each: a longer message would stop
-- Neovim at a "Press ENTER" prompt while the user works elsewhere. A
-- message that does not fit is shortened on screen and kept whole in
-- :messages.
local render = require("aiq.render")

local M = {}

-- room is the width a message may take without a prompt; headless Neovim
-- and narrow windows still get a readable minimum.
local function room()
  local space = tonumber(vim.v.echospace) or 0
  if space <= 0 then
    space = vim.o.columns - 12
  end
  return math.max(space, 40)
end

-- keep adds text to :messages without showing it.
local function keep(text)
  for _, line in ipairs(vim.split(text, "\n", { plain = true })) do
    vim.fn.execute("echomsg " .. vim.fn.string(line), "")
  end
end

local highlights = { [vim.log.levels.ERROR] = "ErrorMsg", [vim.log.levels.WARN] = "WarningMsg" }

-- notify_short shows a shortened message whose whole text was just kept
-- in :messages. Neovim's own vim.notify shows an error with
-- nvim_err_writeln, which scrolls the kept message into view and stops at
-- a prompt; nvim_echo replaces it. A vim.notify a plugin put in its place
-- gets the message as usual.
local function notify_short(text, level)
  local source = debug.getinfo(vim.notify, "S").source or ""
  if not source:find("vim/_editor.lua", 1, true) then
    return vim.notify(text, level)
  end
  vim.api.nvim_echo({ { text, highlights[level] } }, false, {})
end

-- show tells the user msg with vim.notify at level, on one line: a longer
-- one is kept whole in :messages and shown shortened, pointing there.
function M.show(msg, level)
  msg = vim.trim(tostring(msg))
  local first = msg:match("^[^\n]*")
  local width = room()
  if first == msg and vim.api.nvim_strwidth(msg) <= width then
    vim.notify(msg, level)
    return
  end
  keep(msg)
  local more = " (:messages)"
  notify_short(render.shorten(first, width - vim.api.nvim_strwidth(more)) .. more, level)
end

-- error_text is the sentence to show for a server error: its message,
-- which the server writes for the user (its data holds the detail).
function M.error_text(err)
  local text = type(err) == "table" and err.message or err
  return tostring(text or "the request failed")
end

return M
