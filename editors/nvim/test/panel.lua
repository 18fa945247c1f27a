-- The panel's window: half the editor's width by default, or the width
-- setup() gives (columns or a fraction); prose wraps, but a wide table is
-- cut to the panel's width so that no row wraps; the chart fits too.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")
local chat = require("aiq.chat")

local function panel_window()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == chat.buffer() then
      return win
    end
  end
end

local function reopen()
  chat.close()
  chat.open()
  return panel_window()
end

T.run(function()
  vim.o.columns = 120
  T.setup()
  local win = reopen()
  T.eq(vim.api.nvim_win_get_width(win), 60, "the default width: half of 120 columns")
  T.eq(vim.wo[win].wrap, true, "prose wraps")
  T.eq(vim.wo[win].signcolumn, "no", "no sign column takes the table's room")
  T.setup({ panel = { width = 50 } })
  T.eq(vim.api.nvim_win_get_width(reopen()), 50, "a width in columns")
  T.setup({ panel = { width = 0.25 } })
  T.eq(vim.api.nvim_win_get_width(reopen()), 30, "a width as a fraction")
  local ok, err = pcall(T.setup, { panel = { width = "wide" } })
  T.truthy(not ok and err:find("panel.width", 1, true), "a bad width is refused: " .. tostring(err))

  vim.o.columns = 100
  T.setup()
  win = reopen()
  T.eq(vim.api.nvim_win_get_width(win), 50, "half of 100 columns")
  vim.cmd("AiqAsk show the orders with their notes")
  T.wait_turn()
  T.expect("…", "a cut cell")
  T.expect("📊 Orders by status (bar chart)", "the chart")
  for _, line in ipairs(T.panel()) do
    if line:match("^|") or line:match("^  ") then
      T.truthy(vim.api.nvim_strwidth(line) <= 50, "a table or chart line wider than the panel: " .. line)
    end
  end

  -- A question asked in another tab page shows the panel there too.
  vim.cmd("tabnew")
  vim.cmd("AiqAsk and one more?")
  T.wait_turn()
  local shown = 0
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == chat.buffer() then
      shown = shown + 1
    end
  end
  T.eq(shown, 1, "the panel in the new tab page")
  T.eq(vim.api.nvim_win_get_buf(0) ~= chat.buffer(), true, "the cursor stays in the user's window")
  T.eq(#T.errors(), 0, "error messages")
end)
