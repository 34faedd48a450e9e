import type { CrewDefinition } from '../domain/crew.ts';
import { openApiForCrew } from './crew-openapi.ts';
import { publicExampleCrew } from './public-example-crew.ts';

type JsonObject = Record<string, unknown>;

/**
 * The API description of a crew as it is served now: its kickoff body names the inputs of the version new kickoffs
 * run on, so a deploy, a rollback or a saved file under `--watch` shows at once. Made again only when that version
 * changes (`served` gives the same definition for as long as one version is served).
 */
export function servedCrewDocument(
  base: () => JsonObject,
  served: () => CrewDefinition,
  extra: JsonObject = {},
): () => JsonObject {
  let made: { readonly crew: CrewDefinition; readonly document: JsonObject } | undefined;
  return () => {
    const crew = served();
    if (made?.crew !== crew) {
      // openApiForCrew writes into the document it is given: each version's is made from a copy of the base.
      const document = { ...openApiForCrew(structuredClone(base()), publicExampleCrew(crew)), ...extra };
      made = { crew, document };
    }
    return made.document;
  };
}
