-- Real Neovim in tmux (nvim_test.go's TestNvimDialogKeysInTmux): opens the
-- plugin's write dialog five times and its Clear question four times, and
-- appends each answer to $AIQ_TEST_TMP/answers, for the keys the test
-- types; then shows a long error message. No server is needed.
local answers = os.getenv("AIQ_TEST_TMP") .. "/answers"

local function record(line)
  local f = assert(io.open(answers, "a"))
  f:write(line .. "\n")
  f:close()
end

vim.defer_fn(function()
  local confirm = require("aiq.confirm")
  for _ = 1, 5 do
    local result = confirm.ask({
      sql = "DELETE FROM orders WHERE id = 1",
      reason = "DELETE removes rows.",
      scope = "Allow DELETE on orders for this conversation",
    })
    record("write " .. result.decision)
  end
  local session = require("aiq.session")
  for _ = 1, 4 do
    record("clear " .. tostring(session.ask_clear()))
  end
  -- Later, once Neovim has redrawn, a long error, as a failed start
  -- gives: one line on screen, no prompt.
  vim.defer_fn(function()
    require("aiq.message").show(
      "aiq: could not start aiq-rpc: " .. string.rep("a long reason, ", 12) .. "\nIt printed:\nsomething",
      vim.log.levels.ERROR
    )
  end, 300)
end, 200)
