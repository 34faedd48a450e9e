// The weather tools of the example crew's MCP server, answered from the table below: offline, for the example crew
// and the benchmarks. `weather-lookup.mjs` serves them over stdio.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const forecasts = {
  lisbon: { city: 'Lisbon', sky: 'sunny', highC: 24, lowC: 16, windKmh: 14 },
  oslo: { city: 'Oslo', sky: 'light snow', highC: -1, lowC: -6, windKmh: 9 },
  nairobi: { city: 'Nairobi', sky: 'scattered showers', highC: 25, lowC: 14, windKmh: 11 },
  tokyo: { city: 'Tokyo', sky: 'overcast', highC: 17, lowC: 11, windKmh: 18 },
  lima: { city: 'Lima', sky: 'morning fog, then clear', highC: 21, lowC: 17, windKmh: 12 },
  montreal: { city: 'Montreal', sky: 'freezing rain', highC: 1, lowC: -4, windKmh: 27 },
};

/** The weather tools as an MCP server, not yet connected to any transport. */
export function createWeatherServer() {
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
  return server;
}

function knownCities() {
  return Object.values(forecasts)
    .map((forecast) => forecast.city)
    .join(', ');
}
