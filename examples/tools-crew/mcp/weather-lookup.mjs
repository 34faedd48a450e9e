// An MCP server over stdio that answers weather questions from the table below: offline, for the example crew and
// the benchmarks. Declare it in crew.yaml and crewd starts it with node:
//
//   mcp_servers:
//     weather:
//       command: node
//       args: [mcp/weather-lookup.mjs]
//
// Its tools are then `weather.forecast` and `weather.list_cities`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const forecasts = {
  lisbon: { city: 'Lisbon', sky: 'sunny', highC: 24, lowC: 16, windKmh: 14 },
  oslo: { city: 'Oslo', sky: 'light snow', highC: -1, lowC: -6, windKmh: 9 },
  nairobi: { city: 'Nairobi', sky: 'scattered showers', highC: 25, lowC: 14, windKmh: 11 },
  tokyo: { city: 'Tokyo', sky: 'overcast', highC: 17, lowC: 11, windKmh: 18 },
  lima: { city: 'Lima', sky: 'morning fog, then clear', highC: 21, lowC: 17, windKmh: 12 },
  montreal: { city: 'Montreal', sky: 'freezing rain', highC: 1, lowC: -4, windKmh: 27 },
};

const server = new McpServer({ name: 'weather-lookup', version: '1.0.0' });

server.registerTool(
  'forecast',
  {
    description: "Tomorrow's forecast for a city: sky, high and low in °C, wind in km/h.",
    inputSchema: { city: z.string().describe('The city, e.g. "Lisbon"') },
  },
  ({ city }) => {
    const forecast = forecasts[city.trim().toLowerCase()];
    if (forecast === undefined) {
      return {
        isError: true,
        content: [{ type: 'text', text: `No forecast for '${city}'. Known cities: ${knownCities()}.` }],
      };
    }
    const { sky, highC, lowC, windKmh } = forecast;
    return {
      content: [
        {
          type: 'text',
          text: `${forecast.city} tomorrow: ${sky}, high ${highC} °C, low ${lowC} °C, wind ${windKmh} km/h.`,
        },
      ],
    };
  },
);

server.registerTool('list_cities', { description: 'The cities this server has forecasts for.' }, () => ({
  content: [{ type: 'text', text: knownCities() }],
}));

function knownCities() {
  return Object.values(forecasts)
    .map((forecast) => forecast.city)
    .join(', ');
}

await server.connect(new StdioServerTransport());
