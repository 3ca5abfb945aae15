// White daisies on a soft green ground: four flowers of white petals around golden discs.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function petal(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.55 * cos(ang - wide), y + len * 0.55 * sin(ang - wide));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.55 * cos(ang + wide), y + len * 0.55 * sin(ang + wide));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(206, 224, 192);
  brush.noStroke();
  wash("#9cc27f", 140, 0.5, 0.5, 0.6);
  brush.circle(300, 420, 260);
  const flowers = [[200, 250, 80], [380, 220, 65], [330, 400, 70], [150, 430, 50]];
  for (const [x, y, r] of flowers) {
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < 14; k++) {
        wash("#ffffff", 230, 0.2, 0.3, 0.4);
        petal(x, y, k * TWO_PI / 14 + pass * 0.2, r, 0.18);
      }
    }
    wash("#e8b02a", 220, 0.2, 0.4, 0.5);
    brush.circle(x, y, r * 0.28);
    wash("#b57a1c", 150, 0.2, 0.4, 0.5);
    brush.circle(x + r * 0.06, y + r * 0.06, r * 0.15);
  }
}
