// An MCP server over stdio that answers weather questions (see weather-server.mjs). Declare it in crew.yaml and
// crewd starts it with node:
//
//   mcp_servers:
//     weather:
//       command: node
//       args: [mcp/weather-lookup.mjs]
//
// Its tools are then `weather.forecast` and `weather.list_cities`.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createWeatherServer } from './weather-server.mjs';

await createWeatherServer().connect(new StdioServerTransport());
