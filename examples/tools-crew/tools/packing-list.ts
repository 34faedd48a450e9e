import { defineTool } from 'crewd/tools';

interface Weather {
  readonly high_c: number;
  readonly rain: boolean;
}

/** A packing list for a day out, from the day's high and whether it rains. */
export default defineTool<Weather>({
  name: 'packing_list',
  description:
    'Makes a short packing list for a day out from the high temperature in °C and whether it rains.',
  inputSchema: {
    type: 'object',
    properties: {
      high_c: { type: 'number', description: "The day's high in °C" },
      rain: { type: 'boolean', description: 'Whether rain, snow or showers are expected' },
    },
    required: ['high_c', 'rain'],
  },
  run: ({ high_c: high, rain }) => {
    const items = ['water bottle', 'phone charger'];
    if (high >= 22) items.push('sunscreen', 'sunglasses', 'a light shirt');
    else if (high >= 10) items.push('a light jacket', 'a sweater');
    else items.push('a warm coat', 'gloves', 'a hat');
    if (rain) items.push('an umbrella', 'waterproof shoes');
    return items.map((item) => `- ${item}`).join('\n');
  },
});
