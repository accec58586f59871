import { parseZone } from './src/sources/csv/zones.ts';
for (const z of ['Europe/Nicosia','europe/nicosia','europe/berlin','US/Eastern','Asia/Calcutta','UTC+3:30','UTC+2','GMT-5','+02:00','utc','Etc/GMT-2','Mars/X','UTC-3.5','UTC+14','UTC-13', 'Etc/UTC']) console.log(z, JSON.stringify(parseZone(z)));
