-- A model written into config.yaml while the server runs answers the next
-- question, with no restart, and config/changed updates what the plugin
-- knows of the server (what :checkhealth aiq reports).
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  local conn = require("aiq.server").conn
  local info = conn:ready(10000)
  T.eq(info.modelConfigured, false, "modelConfigured before config.yaml is written")
  vim.fn.writefile({
    "llm:",
    "  url: " .. T.env.AIQ_TEST_MODEL_URL,
    "  api_key: " .. T.env.AIQ_TEST_API_KEY,
    "  model: test-model",
  }, T.env.AIQ_TEST_HOME .. "/config/config.yaml")
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  T.expect("There are 4 orders.", "the answer of the model written after start")
  T.eq(conn.info.modelConfigured, true, "modelConfigured after config/changed")
end)
