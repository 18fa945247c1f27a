-- :AiqAllowances: what "Allow always" covers in the session, in a floating
-- window, and revoking one (its id completes) or all.
local server = require("aiq.server")
local session = require("aiq.session")

local M = {}

local api = vim.api

-- describe says what is in force, after the sentence done, as lines.
local function describe(list, done)
  local lines = {}
  if done then
    table.insert(lines, done)
  end
  if #list == 0 then
    table.insert(lines, 'No "Allow always" is in force: every statement that writes asks first.')
    return lines
  end
  table.insert(lines, '"Allow always" covers, in this session only:')
  for _, a in ipairs(list) do
    table.insert(lines, string.format("  %s: %s", a.id, a.scope))
  end
  table.insert(lines, "")
  table.insert(lines, "End one with :AiqAllowances revoke ID (Tab completes it), or all with :AiqAllowances revoke all.")
  return lines
end

-- shown is the floating window open now, so that a second :AiqAllowances
-- replaces it rather than stacking another.
local shown

-- show opens lines in a floating window in the middle of the editor,
-- wrapped to its width; q or Escape closes it, and so does leaving it.
function M.show(lines)
  if shown and api.nvim_win_is_valid(shown) then
    api.nvim_win_close(shown, true)
  end
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width, math.max(20, vim.o.columns - 6))
  local height = 0
  for _, l in ipairs(lines) do
    height = height + math.max(1, math.ceil(vim.fn.strdisplaywidth(l) / width))
  end
  height = math.min(height, math.max(1, vim.o.lines - 6))
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden, vim.bo[buf].modifiable = "wipe", false
  pcall(api.nvim_buf_set_name, buf, "aiq://allowances")
  local win = api.nvim_open_win(buf, true, {
    relative = "editor",
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = "minimal",
    border = "rounded",
  })
  vim.wo[win].wrap = true
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", key, "<cmd>close<CR>", { buffer = buf, silent = true, desc = "aiq: close the allowances" })
  end
  api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    once = true,
    callback = function()
      if api.nvim_win_is_valid(win) then
        api.nvim_win_close(win, true)
      end
    end,
  })
  shown = win
  return win
end

-- run lists the allowances, or with "revoke ID" (or "revoke all") ends
-- one and lists the rest.
function M.run(args)
  local verb, id = (args or ""):match("^%s*(%S*)%s*(%S*)%s*$")
  if verb ~= "" and (verb ~= "revoke" or id == "") then
    return server.notify("usage: :AiqAllowances, or :AiqAllowances revoke ID (or all)", vim.log.levels.ERROR)
  end
  session.with_session(function(sid, err)
    if not sid then
      return server.report(err)
    end
    local method, params, done = "chat/allowances", { sessionId = sid }, nil
    if verb == "revoke" then
      method, params.id = "chat/revoke", id
      done = id == "all" and "Revoked them all." or ("Revoked " .. id .. ".")
    end
    server.conn:request(method, params, function(e, result)
      if e then
        return server.report(e)
      end
      M.show(describe(result.allowances or {}, done))
    end)
  end)
end

-- complete gives "revoke" after the command, and after "revoke" the ids of
-- the allowances in force and "all".
function M.complete(lead, cmdline)
  local words = vim.split(vim.trim(cmdline), "%s+")
  local typing = cmdline:match("%s$") and #words + 1 or #words
  local items = {}
  if typing == 2 then
    items = { "revoke" }
  elseif typing == 3 and words[2] == "revoke" then
    local sid = session.id()
    local result = sid and server.conn:request_sync("chat/allowances", { sessionId = sid }, 3000)
    for _, a in ipairs(result and result.allowances or {}) do
      items[#items + 1] = a.id
    end
    items[#items + 1] = "all"
  end
  return vim.tbl_filter(function(item)
    return item:sub(1, #lead) == lead
  end, items)
end

return M
